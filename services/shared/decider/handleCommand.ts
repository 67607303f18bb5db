import { WrongExpectedVersionError, type DomainEvent, type EventMetadata, type EventStore } from '../eventStore/eventStore.ts';
import { describeErrors, schemaValidator } from '../schemaValidator.ts';
import { foldEvents, type Decider } from './decider.ts';

const validMetadata = schemaValidator<EventMetadata>('events/EventMetadata.v1.json');

export interface HandleCommandOptions {
  metadata: EventMetadata;
  /** How many times a lost race is retried against the newer state before giving up. */
  maxRetries?: number;
}

export interface CommandResult<Event extends DomainEvent> {
  /** The stream version after the command; unchanged when the command decided nothing. */
  nextVersion: number;
  /** Where the last appended event stands in the global feed, for read-your-writes; undefined when nothing was appended. */
  lastGlobalPosition: number | undefined;
  events: Event[];
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
  options: HandleCommandOptions,
): Promise<CommandResult<Event>> {
  const maxRetries = options.maxRetries ?? 5;
  // Metadata is what audits read years later: refuse an event that would not say who and when.
  if (!validMetadata(options.metadata)) throw new TypeError(`event metadata is invalid: ${describeErrors(validMetadata)}`);
  for (let attempt = 0; ; attempt++) {
    const { version, events } = await store.readStream<Event>(stream);
    const state = foldEvents(decider, events.map(({ type, data }) => ({ type, data }) as Event));
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { nextVersion: version, lastGlobalPosition: undefined, events: [] };
    try {
      const result = await store.appendToStream(
        stream,
        decided.map((event) => ({ type: event.type, data: event.data, metadata: options.metadata })),
        { expectedVersion: version },
      );
      return { ...result, events: decided };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= maxRetries) throw error;
    }
  }
}
