import { setTimeout as sleep } from 'node:timers/promises';
import { BlobNotFoundError, type BlobStore } from '#shared/blobs/blobStore.ts';

/** What the follower tells its reader. */
export type LogNotice =
  | { kind: 'line'; text: string; /** The byte offset just after the line: where a reconnect resumes. */ offset: number }
  | { kind: 'waiting' }
  | { kind: 'skipped'; bytes: number }
  | { kind: 'truncated' };

export interface FollowOptions {
  blobs: BlobStore;
  /** The log's blob key (`instanceLogKey`). */
  key: string;
  /** Byte offset to start at (a reconnect's Last-Event-ID); undefined: a new reader. */
  from: number | undefined;
  /** A new reader gets at most this much of what is stored, starting at a line. */
  backlogBytes: number;
  pollMs: number;
  /** A last line without its newline is sent once it has not grown for this long. */
  partialLineMs: number;
  signal: AbortSignal;
  send(notice: LogNotice): Promise<void>;
}

const CHUNK = 256 * 1024;
const NEWLINE = 0x0a;

type Log = Pick<FollowOptions, 'blobs' | 'key'>;

/** Up to `length` bytes from `position`; fewer (or none) when the log is shorter or went away meanwhile. */
async function readAt({ blobs, key }: Log, position: number, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of await blobs.get(key, { start: position, end: position + length - 1 })) chunks.push(chunk as Buffer);
  } catch (error) {
    if (!(error instanceof BlobNotFoundError)) throw error;
  }
  return Buffer.concat(chunks);
}

/** The offset just after the first newline at or after `position` (the start of the next whole line). */
async function nextLineStart(log: Log, position: number, size: number): Promise<number> {
  for (let at = position; at < size; at += CHUNK) {
    const chunk = await readAt(log, at, Math.min(CHUNK, size - at));
    const newline = chunk.indexOf(NEWLINE);
    if (newline >= 0) return at + newline + 1;
  }
  return size;
}

// A carriage return ends a line in SSE too: drop them (CRLF logs) rather than split on them.
const lineText = (bytes: Buffer) => bytes.toString('utf8').replace(/\r/g, '');

/**
 * Follows a log blob by polling `stat` and reading the new range: first what is stored (from `from`,
 * or the last `backlogBytes` for a new reader), then each line as the log grows. Survives the log
 * not existing yet, being truncated or replaced (a new `generation`: starts again at 0); a line
 * longer than the read chunk is sent in pieces. Ends when `signal` aborts.
 */
export async function followLog(options: FollowOptions): Promise<void> {
  const { signal, send } = options;
  const log: Log = options;
  let offset = options.from ?? 0;
  let generation: string | undefined;
  let waitingSaid = false;
  let partial: { size: number; since: number } | undefined;
  let first = true;

  while (!signal.aborted) {
    const state = await options.blobs.stat(options.key);
    if (!state) {
      if (!waitingSaid) await send({ kind: 'waiting' });
      waitingSaid = true;
    } else {
      waitingSaid = false;
      if (state.size < offset || (generation !== undefined && state.generation !== generation)) {
        await send({ kind: 'truncated' });
        offset = 0;
        partial = undefined;
      }
      generation = state.generation;
      if (first && options.from === undefined && state.size > options.backlogBytes) {
        offset = await nextLineStart(log, state.size - options.backlogBytes, state.size);
        await send({ kind: 'skipped', bytes: offset });
      }
      while (offset < state.size && !signal.aborted) {
        const chunk = await readAt(log, offset, Math.min(CHUNK, state.size - offset));
        if (chunk.length === 0) break;
        const end = chunk.lastIndexOf(NEWLINE);
        if (end < 0) {
          if (chunk.length === CHUNK) {
            offset += chunk.length;
            await send({ kind: 'line', text: lineText(chunk), offset });
            continue;
          }
          // The last line is still being written: send it only once it stops growing.
          const now = Date.now();
          if (partial?.size !== state.size) partial = { size: state.size, since: now };
          else if (now - partial.since >= options.partialLineMs) {
            offset += chunk.length;
            await send({ kind: 'line', text: lineText(chunk), offset });
            partial = undefined;
          }
          break;
        }
        let start = 0;
        for (let at = chunk.indexOf(NEWLINE); at >= 0 && at <= end; at = chunk.indexOf(NEWLINE, start)) {
          await send({ kind: 'line', text: lineText(chunk.subarray(start, at)), offset: offset + at + 1 });
          start = at + 1;
        }
        offset += end + 1;
      }
    }
    first = false;
    await sleep(options.pollMs, undefined, { signal }).catch(() => undefined);
  }
}
