import { randomUUID } from 'node:crypto';
import type { Pool } from '#shared/db.ts';
import { benchEvent, benchPool, expectedVersionOf, streamOf, warmPool, type Workload } from './workload.ts';

/**
 * Anchors: what this database does with the same workload minus the event store's logic. Each
 * anchor writes into its own copy of `event_store.events` (same columns, keys and unique indexes),
 * so index maintenance costs the same as for real appends.
 */
export type AnchorKind = 'plain' | 'locked';

const COLUMNS = 'global_position, stream_id, stream_version, event_id, event_type, data, metadata';

function insertInto(kind: AnchorKind, table: string): string {
  switch (kind) {
    // Group commit: concurrent commits share WAL flushes, the ceiling for one-event transactions.
    case 'plain':
      return `insert into ${table} (${COLUMNS}) values (nextval('${table}_seq'), $1, $2, $3, $4, $5, $6)`;
    // The serialized-append floor: the lock is held through the commit's flush, so commits queue
    // one behind another, but lock and insert still cost a single round trip.
    case 'locked':
      return `with l as (select pg_advisory_xact_lock(1))
              insert into ${table} (${COLUMNS})
              select nextval('${table}_seq'), $1, $2, $3::uuid, $4, $5::jsonb, $6::jsonb from l`;
  }
}

const LABELS: Record<AnchorKind, string> = {
  plain: 'anchor: INSERT, no lock',
  locked: 'anchor: INSERT + same-statement xact lock',
};

/** `tag` tells apart anchors of one kind run in the same benchmark (each needs empty streams). */
const tableOf = (kind: AnchorKind, tag: string) => `bench.anchor_${kind}${tag}`;

/** Creates an anchor table and its sequence in schema `bench`, shaped like `event_store.events`. */
export async function createAnchorTable(admin: Pool, kind: AnchorKind, tag = ''): Promise<void> {
  const table = tableOf(kind, tag);
  await admin.query('create schema if not exists bench');
  await admin.query(`create table ${table} (like event_store.events including all)`);
  await admin.query(`create sequence ${table}_seq`);
}

/**
 * `writers` connections, one autocommit statement per event, as a named prepared statement (what
 * the adapter uses too). The event body is built and serialized exactly as the adapter does.
 */
export function anchorWorkload(url: string, kind: AnchorKind, writers: number, total: number, tag = ''): Workload {
  const pool = benchPool(url, writers);
  const table = tableOf(kind, tag);
  const text = insertInto(kind, table);
  return {
    label: `${LABELS[kind]}, ${writers} conn${writers === 1 ? '' : 's'}`,
    writers,
    total,
    open: () => warmPool(pool, writers),
    op(writer, seq) {
      const event = benchEvent(writer, seq);
      return pool.query({
        name: table,
        text,
        values: [
          streamOf(`anchor${kind}`, writer, seq),
          expectedVersionOf(seq) + 1,
          randomUUID(),
          event.type,
          JSON.stringify(event.data),
          JSON.stringify(event.metadata),
        ],
      });
    },
    close: () => pool.end(),
  };
}
