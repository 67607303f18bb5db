import type pg from 'pg';
import { createClient } from '#shared/db.ts';

/** Advisory-lock namespace of projectors and reactors (two-int form, apart from the event store's lock). */
const LOCK_CLASS = 4243;

/**
 * A session-level advisory lock held on its own connection: one active runner per name across
 * every process. If the process dies, the connection closes and PostgreSQL releases the lock.
 */
export interface RunnerLock {
  /** Resolves true once held, false if the signal aborted first. */
  acquire(signal: AbortSignal, retryMs: number): Promise<boolean>;
  /** Whether the lock's connection is still alive. */
  readonly held: boolean;
  release(): Promise<void>;
}

export function createRunnerLock(connectionString: string, name: string): RunnerLock {
  let client: pg.Client | undefined;
  let held = false;
  return {
    get held() {
      return held;
    },
    async acquire(signal, retryMs) {
      while (!signal.aborted) {
        try {
          if (!client) {
            const fresh = createClient(connectionString, `forja-lock:${name}`);
            fresh.on('error', () => {
              held = false;
              client = undefined;
            });
            fresh.on('end', () => {
              held = false;
            });
            await fresh.connect();
            client = fresh;
          }
          const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as locked', [LOCK_CLASS, name]);
          if (rows[0]?.locked) return (held = true);
        } catch {
          client = undefined;
        }
        await sleep(retryMs, signal);
      }
      return false;
    },
    async release() {
      held = false;
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
