/** A running shell behind a pseudo-terminal, whichever runtime it runs in. */
export interface Terminal {
  write(data: string): void;
  resize(cols: number, rows: number): void;
  onData(listener: (chunk: Buffer) => void): void;
  /** Stops reading output until `resume` (the browser is slower than the program writing). */
  pause(): void;
  resume(): void;
  /** Called once, when the shell has ended (exit code, or null when unknown). */
  onExit(listener: (code: number | null) => void): void;
  /** Hangs up (as closing a terminal window does); the shell ends soon after. */
  close(): void;
}

/** Why a shell cannot open: a message for the user, shown in the terminal. */
export class ShellUnavailable extends Error {
  override readonly name = 'ShellUnavailable';
}
