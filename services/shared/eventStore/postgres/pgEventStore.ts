import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { createKysely, type Pool } from '../../db.ts';
import { migrateSchema } from '../../migrations.ts';
import {
  DuplicateEventIdError,
  WrongExpectedVersionError,
  type DomainEvent,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../eventStore.ts';
import * as createEventStore from './migrations/20261122_0001_event_store.ts';
import * as typedAppend from './migrations/20261122_0002_typed_append.ts';
import { AppendNotifier } from './appendNotifier.ts';

export interface PgEventStoreOptions {
  pool: Pool;
  /** Connection string for the LISTEN connection that wakes subscribers. */
  connectionString: string;
  /** Subscribers poll this often when no notice arrives. */
  pollIntervalMs?: number;
}

interface EventRow {
  global_position: number;
  stream_id: string;
  stream_version: number;
  event_id: string;
  event_type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date;
}

/** Appends within this window share one NOTIFY to other processes. */
const NOTIFY_COALESCE_MS = 5;

const COLUMNS = 'global_position, stream_id, stream_version, event_id, event_type, data, metadata, recorded_at';

/** Creates the `event_store` schema if needed; run once at start-up. */
export async function migrateEventStore(pool: Pool): Promise<void> {
  const db = createKysely<unknown>(pool);
  await migrateSchema(db, 'event_store', { '20261122_0001_event_store': createEventStore, '20261122_0002_typed_append': typedAppend });
}

/**
 * The PostgreSQL event store (schema `event_store`). Appends go through `event_store.append`, one
 * round trip that serializes appends, so global positions are in commit order (see the
 * migrations). Events travel as typed arrays, so the function unpacks no JSON inside its lock.
 * Statements are named so PostgreSQL plans them once per connection.
 */
export function createPgEventStore(options: PgEventStoreOptions): EventStore {
  const { pool } = options;
  const notifier = new AppendNotifier(options.connectionString);
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  let announcing = false;

  /**
   * Wakes subscribers after an append: this process's at once, other processes' through at most
   * one NOTIFY every few milliseconds (sent after the appends committed, outside the append lock,
   * so a burst of appends costs one notice instead of one each). A lost notice costs a
   * subscriber at most one poll interval, never an event.
   */
  function announce(): void {
    notifier.wakeLocal();
    if (announcing) return;
    announcing = true;
    setTimeout(() => {
      announcing = false;
      pool.query({ name: 'event_store.notify', text: "select pg_notify('event_store_append', '')" }).catch(() => undefined);
    }, NOTIFY_COALESCE_MS);
  }

  async function readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    const { rows } = await pool.query<EventRow>({
      name: 'event_store.read_all',
      text: `select ${COLUMNS} from event_store.events where global_position > $1 order by global_position limit $2`,
      values: [after, limit],
    });
    return rows.map(toRecorded);
  }

  return {
    async appendToStream(stream, events, { expectedVersion }) {
      if (events.length === 0) throw new Error('appendToStream needs at least one event');
      try {
        const { rows } = await pool.query<{ next_version: number; last_global_position: number }>({
          name: 'event_store.append',
          text: 'select next_version, last_global_position from event_store.append($1, $2, $3, $4, $5, $6)',
          values: [
            stream,
            expectedVersion === 'any' ? -1 : expectedVersion,
            events.map((event) => event.id ?? randomUUID()),
            events.map((event) => event.type),
            events.map((event) => JSON.stringify(event.data ?? null)),
            events.map((event) => JSON.stringify(event.metadata)),
          ],
        });
        const row = rows[0];
        if (!row) throw new Error(`append to ${stream} returned nothing`);
        announce();
        return { nextVersion: row.next_version, lastGlobalPosition: row.last_global_position };
      } catch (error) {
        throw translate(error as pg.DatabaseError, stream, expectedVersion, events);
      }
    },

    async readStream<E extends DomainEvent>(stream: string, { fromVersion = 0 }: ReadStreamOptions = {}) {
      const { rows } = await pool.query<EventRow>({
        name: 'event_store.read_stream_from',
        text: `select ${COLUMNS} from event_store.events where stream_id = $1 and stream_version > $2 order by stream_version`,
        values: [stream, fromVersion],
      });
      const events = rows.map((row) => toRecorded(row) as RecordedEvent<E>);
      return { version: events.at(-1)?.version ?? fromVersion, events };
    },

    readAll,

    async headPosition() {
      const { rows } = await pool.query<{ head: number | null }>('select max(global_position) as head from event_store.events');
      return rows[0]?.head ?? 0;
    },

    subscribe(subscribeOptions: SubscribeOptions) {
      return subscribeToAll(readAll, notifier, { pollIntervalMs, ...subscribeOptions });
    },

    async close() {
      await notifier.close();
    },
  };
}

async function* subscribeToAll(
  readAll: (options: ReadAllOptions) => Promise<RecordedEvent[]>,
  notifier: AppendNotifier,
  options: SubscribeOptions & { pollIntervalMs: number },
): AsyncGenerator<RecordedEvent[]> {
  const { signal, pollIntervalMs } = options;
  const batchSize = options.batchSize ?? 1000;
  let after = options.after;
  await notifier.start();
  while (!signal?.aborted) {
    // Ask for the wake-up before reading, so an append between the read and the wait is not missed.
    const woken = notifier.nextAppend(pollIntervalMs, signal);
    const batch = await readAll({ after, limit: batchSize });
    if (batch.length > 0) {
      after = batch.at(-1)!.globalPosition;
      yield batch;
      continue;
    }
    await woken;
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    stream: row.stream_id,
    type: row.event_type,
    data: row.data,
    metadata: row.metadata,
    version: row.stream_version,
    globalPosition: row.global_position,
    recordedAt: row.recorded_at,
  };
}

function translate(error: pg.DatabaseError, stream: string, expected: number | 'any', events: NewEvent[]): Error {
  if (error.code === 'P0001' && error.message === 'wrong_expected_version') {
    return new WrongExpectedVersionError(stream, expected, Number(error.detail));
  }
  if ((error.code === 'P0001' && error.message === 'duplicate_event_id') || error.code === '23505') {
    return new DuplicateEventIdError(stream, events[0]?.id ?? '?');
  }
  return error;
}
