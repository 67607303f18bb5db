import { open, stat } from 'node:fs/promises';

/** The last `lines` lines of a log file (reading at most its last 64 kB); none when it does not exist. */
export async function logTail(file: string, lines = 20): Promise<string[]> {
  const size = await stat(file).then((info) => info.size, () => -1);
  if (size <= 0) return [];
  const length = Math.min(size, 64 * 1024);
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString('utf8').split('\n').filter((line) => line.length > 0).slice(-lines);
  } finally {
    await handle.close();
  }
}
