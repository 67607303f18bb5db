import type { DomainEvent, EventStore, RecordedEvent } from '../eventStore/eventStore.ts';
import type { Decider } from './decider.ts';

/** A stream folded up to `version`, with the last event read (what a decision on it was caused by). */
export interface Aggregate<State> {
  state: State;
  version: number;
  lastEvent: RecordedEvent | undefined;
}

/**
 * Folds a stream through its decider. Given an aggregate already folded to some version, reads
 * only the events appended since: a holder of the state catches up in one short read.
 */
export async function aggregateStream<State, Event extends DomainEvent>(
  store: EventStore,
  decider: Pick<Decider<State, unknown, Event>, 'evolve' | 'initialState'>,
  stream: string,
  from?: Aggregate<State>,
): Promise<Aggregate<State>> {
  const { version, events } = await store.readStream<Event>(stream, { fromVersion: from?.version ?? 0 });
  const state = events.reduce((folded, { type, data }) => decider.evolve(folded, { type, data } as Event), from?.state ?? decider.initialState());
  return { state, version, lastEvent: (events.at(-1) as RecordedEvent | undefined) ?? from?.lastEvent };
}
