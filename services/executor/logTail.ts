import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

/** The size of a file, 0 when it does not exist: where a run's own log lines will start. */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * The last `count` non-empty lines of a log written since byte `from` (a file that shrank is read
 * from its start), reading at most its last 64 KiB; none when it does not exist. What a failed
 * step or run shows of why it failed.
 */
export function logTail(path: string, { from = 0, count = 20 }: { from?: number; count?: number } = {}): string[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
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
