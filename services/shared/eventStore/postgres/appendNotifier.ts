import type pg from 'pg';
import { createClient } from '../../db.ts';

const CHANNEL = 'event_store_append';

/**
 * One LISTEN connection per event store, shared by its subscribers. Notices only wake readers up;
 * readers always read from the table, so a lost notice (connection dropped) costs at most one poll
 * interval and never an event.
 */
export class AppendNotifier {
  private client: pg.Client | undefined;
  private starting: Promise<void> | undefined;
  private waiters = new Set<() => void>();
  private closed = false;

  constructor(private readonly connectionString: string) {}

  start(): Promise<void> {
    this.starting ??= this.connect().catch(() => {
      // Polling still works; try LISTEN again on the next start().
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Resolves on the next append notice, after `timeoutMs`, or when `signal` aborts. */
  nextAppend(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
      if (this.closed || signal?.aborted) done();
      else if (!this.client) void this.start();
    });
  }

  /** Wakes this process's subscribers without waiting for the server's notice. */
  wakeLocal(): void {
    for (const wake of [...this.waiters]) wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeLocal();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = createClient(this.connectionString, 'forja-event-listener');
    client.on('notification', () => this.wakeLocal());
    client.on('error', () => {
      if (this.client === client) {
        this.client = undefined;
        this.starting = undefined;
      }
      void client.end().catch(() => undefined);
    });
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
  }
}
