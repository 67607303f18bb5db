/**
 * The web shell's WebSocket protocol, kept to what xterm.js needs. The browser sends text frames
 * of JSON: `{"type":"input","data":"ls\r"}` (keys and pastes, as xterm gives them) and
 * `{"type":"resize","cols":120,"rows":32}` (the fit addon's size). Web sends the terminal's output
 * as binary frames, bytes as the pty gave them (xterm decodes UTF-8 across frames), and its own
 * news as text frames of JSON: `notice` (a line for the user) and `closed` (the session ended).
 */

export type ClientMessage = { type: 'input'; data: string } | { type: 'resize'; cols: number; rows: number };

export type ServerMessage = { type: 'notice'; text: string } | { type: 'closed'; reason: string; text: string };

/** A terminal size a person could have: larger would let one message make the pty allocate huge screens. */
export const SIZE_LIMITS = { cols: { min: 2, max: 1000 }, rows: { min: 1, max: 500 } } as const;

/** What one input message may carry: a large paste arrives in several. */
export const MAX_INPUT_CHARS = 64 * 1024;

export interface TerminalSize {
  cols: number;
  rows: number;
}

export const DEFAULT_SIZE: TerminalSize = { cols: 80, rows: 24 };

function inRange(value: unknown, { min, max }: { min: number; max: number }): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** The message in a browser's text frame, or null for anything else (which web ignores). */
export function parseClientMessage(text: string): ClientMessage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object') return null;
  const message = parsed as Record<string, unknown>;
  if (message['type'] === 'input' && typeof message['data'] === 'string' && message['data'].length <= MAX_INPUT_CHARS) return { type: 'input', data: message['data'] };
  if (message['type'] === 'resize' && inRange(message['cols'], SIZE_LIMITS.cols) && inRange(message['rows'], SIZE_LIMITS.rows)) {
    return { type: 'resize', cols: message['cols'], rows: message['rows'] };
  }
  return null;
}

/** The first size, from the socket URL's `cols` and `rows` (the page measures before it connects); the default when missing or wrong. */
export function initialSize(url: string | undefined): TerminalSize {
  const query = new URLSearchParams((url ?? '').split('?')[1] ?? '');
  const cols = Number(query.get('cols'));
  const rows = Number(query.get('rows'));
  return inRange(cols, SIZE_LIMITS.cols) && inRange(rows, SIZE_LIMITS.rows) ? { cols, rows } : DEFAULT_SIZE;
}

export const serverMessage = (message: ServerMessage): string => JSON.stringify(message);
