import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';
import { findOnPath } from '#shared/local/findOnPath.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import type { TerminalSize } from './shellMessages.ts';
import { ShellUnavailable, type Terminal } from './terminal.ts';

/**
 * Why Python: Node has no pseudo-terminal without a native module. node-pty compiles with
 * node-gyp at install time (a C++ toolchain on every machine, install scripts npm may block),
 * while Debian's python3 has pty, termios and fcntl in its standard library: ptyHelper.py opens
 * the pty, runs the shell on it and applies resizes (TIOCSWINSZ) web sends on fd 3. Its source is
 * passed with -c, so the user the shell runs as needs no read access to Forja's checkout.
 */
const HELPER_SOURCE = readFileSync(fileURLToPath(new URL('./ptyHelper.py', import.meta.url)), 'utf8');

export const PYTHON_MISSING = 'The web shell needs python3 on this server (apt-get install python3).';

/** Debian's python3 first: a per-user one (pyenv under /root) is out of reach of the shell's user. */
export function pythonCommand(): string | undefined {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : findOnPath('python3');
}

export interface ProcessTerminalOptions {
  /** The program and its arguments (`bash -l`). */
  command: string[];
  cwd: string;
  env: Record<string, string>;
  /** Who the shell runs as; null: web's own user (web is not root). */
  user: SystemUser | null;
  size: TerminalSize;
}

/** A shell on a pty of its own, as `user`, through ptyHelper.py. */
export function processTerminal(options: ProcessTerminalOptions): Terminal {
  const python = pythonCommand();
  if (!python) throw new ShellUnavailable(PYTHON_MISSING);
  const child = spawn(python, ['-c', HELPER_SOURCE, String(options.size.rows), String(options.size.cols), ...options.command], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
  });
  const control = child.stdio[3] as Writable;
  // The shell may be gone when the user types or resizes: a broken pipe is no error of theirs.
  for (const stream of [child.stdin, control]) stream.on('error', () => {});
  let exited = false;
  const exitListeners: Array<(code: number | null) => void> = [];
  const exit = (code: number | null) => {
    if (exited) return;
    exited = true;
    for (const listener of exitListeners) listener(code);
  };
  child.on('exit', (code) => exit(code));
  child.on('error', () => exit(null));
  return {
    write: (data) => {
      if (!exited) child.stdin.write(data);
    },
    resize: (cols, rows) => {
      if (!exited) control.write(`resize ${rows} ${cols}\n`);
    },
    onData: (listener) => {
      child.stdout.on('data', listener);
      // What the helper itself says (it cannot start the shell) is output too.
      child.stderr.on('data', listener);
    },
    pause: () => child.stdout.pause(),
    resume: () => child.stdout.resume(),
    onExit: (listener) => exitListeners.push(listener),
    close: () => {
      if (exited) return;
      // End of input hangs the shell up (the helper sends it SIGHUP, then SIGKILL after 3 s).
      child.stdin.end();
      setTimeout(() => {
        if (!exited) child.kill('SIGKILL');
      }, 5000).unref();
    },
  };
}
