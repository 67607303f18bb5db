import type { Transaction } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';

/**
 * A read model kept from events. `apply` runs inside the transaction that also moves the
 * checkpoint, so a batch is applied entirely or not at all, and never twice.
 */
export interface Projection<Db = any> {
  name: string;
  /** Event types it reads, or `'all'`; the runner skips the others (but still moves past them). */
  eventTypes: readonly string[] | 'all';
  /** The read-model tables it owns: a rebuild empties them and replays from zero. */
  tables: readonly string[];
  apply(trx: Transaction<Db>, events: RecordedEvent[]): Promise<void>;
}

/**
 * Work triggered by events, with at-least-once delivery: `handle` runs, then the checkpoint moves.
 * A crash in between re-runs the batch, so handlers must be idempotent (publish with the event id
 * as message id, for example).
 */
export interface Reactor {
  name: string;
  eventTypes: readonly string[] | 'all';
  handle(events: RecordedEvent[]): Promise<void>;
}

/** Keeps the events a projection or reactor reads. */
export function eventsFor(eventTypes: readonly string[] | 'all'): (events: RecordedEvent[]) => RecordedEvent[] {
  if (eventTypes === 'all') return (events) => events;
  const types = new Set(eventTypes);
  return (events) => events.filter((event) => types.has(event.type));
}
