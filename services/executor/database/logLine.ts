import type { Writable } from 'node:stream';

/**
 * Appends one timestamped line to an instance's `db` log. The log is what an operator reads when
 * a step failed, so every action is written before it is done, in the operator's words.
 */
export function logLine(log: Writable, message: string): void {
  if (log.destroyed || log.writableEnded) return;
  log.write(`${new Date().toISOString()} ${message}\n`);
}
