import { WrongExpectedVersionError, type DomainEvent, type EventMetadata, type EventStore } from '../eventStore/eventStore.ts';
import { describeErrors, schemaValidator } from '../schemaValidator.ts';
import { aggregateStream, type Aggregate } from './aggregateStream.ts';
import { DomainError, type Decider } from './decider.ts';

const validMetadata = schemaValidator<EventMetadata>('events/EventMetadata.v1.json');

export interface HandleCommandOptions<State = unknown> {
  /** Fixed, or built from the aggregate the decision is made on (a system event names the event it follows from). */
  metadata: EventMetadata | ((decidedOn: Aggregate<State>) => EventMetadata);
  /**
   * The stream as the caller already holds it: the command is decided on it and only the events
   * appended since are read, when the append finds the stream moved on (or the decision on it is
   * refused, in case newer events would allow it).
   */
  known?: Aggregate<State>;
  /** How many times a lost race is retried against the newer state before giving up. */
  maxRetries?: number;
}

export interface CommandResult<Event extends DomainEvent, State = unknown> {
  /** The stream version after the command; unchanged when the command decided nothing. */
  nextVersion: number;
  /** Where the last appended event stands in the global feed, for read-your-writes; undefined when nothing was appended. */
  lastGlobalPosition: number | undefined;
  events: Event[];
  /** The stream after the command, for a caller that keeps it (`known`). */
  aggregate: Aggregate<State>;
}

/**
 * Loads the stream, decides, and appends with the version it loaded. When another writer got
 * there first the whole load–decide–append is retried on the newer state, so the decision is
 * always made on the state it is appended after.
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  decider: Decider<State, Command, Event>,
  stream: string,
  command: Command,
  options: HandleCommandOptions<State>,
): Promise<CommandResult<Event, State>> {
  const maxRetries = options.maxRetries ?? 5;
  const checked = (metadata: EventMetadata) => {
    // Metadata is what audits read years later: refuse an event that would not say who and when.
    if (!validMetadata(metadata)) throw new TypeError(`event metadata is invalid: ${describeErrors(validMetadata)}`);
    return metadata;
  };
  if (typeof options.metadata !== 'function') checked(options.metadata);
  let aggregate = options.known ?? (await aggregateStream(store, decider, stream));
  let fresh = options.known === undefined;
  for (let attempt = 0; ; attempt++) {
    let decided: Event[];
    try {
      decided = decider.decide(command, aggregate.state);
    } catch (error) {
      if (fresh || !(error instanceof DomainError)) throw error;
      aggregate = await aggregateStream(store, decider, stream, aggregate);
      fresh = true;
      continue;
    }
    if (decided.length === 0) return { nextVersion: aggregate.version, lastGlobalPosition: undefined, events: [], aggregate };
    const metadata = checked(typeof options.metadata === 'function' ? options.metadata(aggregate) : options.metadata);
    try {
      const result = await store.appendToStream(
        stream,
        decided.map((event) => ({ type: event.type, data: event.data, metadata })),
        { expectedVersion: aggregate.version },
      );
      const state = decided.reduce(decider.evolve, aggregate.state);
      return { ...result, events: decided, aggregate: { state, version: result.nextVersion, lastEvent: aggregate.lastEvent } };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= maxRetries) throw error;
      aggregate = await aggregateStream(store, decider, stream, aggregate);
      fresh = true;
    }
  }
}
