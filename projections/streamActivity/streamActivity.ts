import { streamCategory, type RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';

/**
 * Every stream's latest version and last event: what happened recently, and to what. Reads every
 * event type, which also makes it the simplest replay benchmark.
 */
export const streamActivityProjection: Projection<ReadModelDatabase> = {
  name: 'stream_activity',
  eventTypes: 'all',
  tables: ['stream_activity'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    // Only the newest event of each stream in the batch matters: one row per stream, one statement.
    const latest = new Map<string, RecordedEvent>();
    for (const event of events) latest.set(event.stream, event);
    const rows = [...latest.values()].map((event) => ({
      stream_id: event.stream,
      category: streamCategory(event.stream),
      version: event.version,
      last_event_type: event.type,
      last_event_at: event.recordedAt,
      last_actor: event.metadata.actor,
    }));
    await trx
      .insertInto('stream_activity')
      .values(rows)
      .onConflict((oc) =>
        oc.column('stream_id').doUpdateSet((eb) => ({
          version: eb.ref('excluded.version'),
          last_event_type: eb.ref('excluded.last_event_type'),
          last_event_at: eb.ref('excluded.last_event_at'),
          last_actor: eb.ref('excluded.last_actor'),
        })),
      )
      .execute();
  },
};

/** The most recently active streams, optionally of one category. */
export async function recentActivity(db: ReadModel, { category, limit = 50 }: { category?: string; limit?: number } = {}) {
  let query = db.selectFrom('stream_activity').selectAll().orderBy('last_event_at', 'desc').limit(limit);
  if (category) query = query.where('category', '=', category);
  return query.execute();
}
