import { closeSync, fstatSync, readSync } from 'node:fs';
import { openLogRead } from './logFile.ts';

/** The size of a log below `root`, 0 when it does not exist: where a run's own log lines will start. */
export function fileSize(root: string, path: string): number {
  const fd = openLogRead(root, path);
  if (fd === null) return 0;
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/**
 * The last `count` non-empty lines of a log below `root` written since byte `from` (a file that
 * shrank is read from its start), reading at most its last 64 KiB; none when it does not exist.
 * What a failed step or run shows of why it failed, so it is read without following a link
 * (logFile.ts): a tail must never copy another file into an event.
 */
export function logTail(root: string, path: string, { from = 0, count = 20 }: { from?: number; count?: number } = {}): string[] {
  const fd = openLogRead(root, path);
  if (fd === null) return [];
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(size < from ? 0 : from, size - 64 * 1024);
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    return buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-count);
  } finally {
    closeSync(fd);
  }
}
