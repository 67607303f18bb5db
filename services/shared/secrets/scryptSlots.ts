import { availableParallelism } from 'node:os';

/** Refused: every slot is busy and the wait would be too long. Callers answer 503 with `Retry-After`. */
export class PasswordChecksBusy extends Error {
  override readonly name = 'PasswordChecksBusy';
  constructor() {
    super('too many password checks at once');
  }
}

export interface SlotOptions {
  /** Tasks running at once. */
  size: number;
  /** Tasks waiting for a slot; one more is refused at once. */
  maxWaiting: number;
  /** How long a task waits for a slot before it is refused. */
  maxWaitMs: number;
}

/**
 * A bound on tasks running at once, with a short, bounded queue: excess work is refused quickly
 * rather than piling up.
 */
export function createSlots({ size, maxWaiting, maxWaitMs }: SlotOptions) {
  let running = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };

  function acquire(): Promise<void> {
    if (running < size) {
      running += 1;
      return Promise.resolve();
    }
    if (waiting.length >= maxWaiting) return Promise.reject(new PasswordChecksBusy());
    return new Promise((resolve, reject) => {
      const start = () => {
        clearTimeout(timer);
        running += 1;
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(start), 1);
        reject(new PasswordChecksBusy());
      }, maxWaitMs);
      waiting.push(start);
    });
  }

  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    size,
    /** Tasks running now (for tests). */
    running: () => running,
  };
}

/**
 * scrypt runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which
 * file reads, DNS lookups and zlib share, and keeps a core busy for ~100 ms a check. With no bound,
 * a flood of sign-ins queued every static file behind seconds of key derivation. At most half the
 * pool derives keys at once, and never on every core: the rest of the pool and one core stay free
 * for everything else.
 */
export const scryptSlots = createSlots({
  size: Math.max(1, Math.min(Math.floor((Number(process.env['UV_THREADPOOL_SIZE']) || 4) / 2), availableParallelism() - 1)),
  maxWaiting: 32,
  maxWaitMs: 3000,
});
