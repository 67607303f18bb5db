/**
 * The event store port. Every adapter (PostgreSQL, EventStoreDB) passes the one contract suite in
 * `test/shared/eventStore.contract.ts`.
 *
 * Versions count events: a stream with 3 events is at version 3, a stream that does not exist is at
 * version 0. Global positions are strictly increasing in commit order, so a reader that keeps the
 * last position it saw never skips an event; they need not be dense.
 */

export interface EventMetadata {
  /** The request or job this event belongs to. */
  correlationId: string;
  /** The command or event that caused this one. */
  causationId: string;
  /** A user id, or `system`. */
  actor: string;
  /** ISO 8601 time the command was decided. */
  at: string;
  [key: string]: unknown;
}

/** An event as a decider produces it: a PascalCase past-tense type and its JSON data. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

/** An event about to be appended. `id` makes re-appending it a no-op; one is generated when absent. */
export interface NewEvent<E extends DomainEvent = DomainEvent> {
  id?: string;
  type: E['type'];
  data: E['data'];
  metadata: EventMetadata;
}

export interface RecordedEvent<E extends DomainEvent = DomainEvent> {
  id: string;
  stream: string;
  type: E['type'];
  data: E['data'];
  metadata: EventMetadata;
  /** 1-based position in its stream: the stream's version right after this event. */
  version: number;
  globalPosition: number;
  recordedAt: Date;
}

/** `'any'` skips the check; a number is the version the stream must be at (0 = must not exist). */
export type ExpectedVersion = number | 'any';

export interface AppendResult {
  /** The stream's version after the append. */
  nextVersion: number;
  /** Global position of the last event of the append. */
  lastGlobalPosition: number;
}

export interface ReadStreamResult<E extends DomainEvent = DomainEvent> {
  version: number;
  events: RecordedEvent<E>[];
}

export interface ReadStreamOptions {
  /** Read only the events after this version (0 = from the start). */
  fromVersion?: number;
}

export interface ReadAllOptions {
  /** Return events strictly after this global position; 0 reads from the start. */
  after: number;
  limit: number;
}

export interface SubscribeOptions {
  after: number;
  /** Largest batch yielded at once. */
  batchSize?: number;
  signal?: AbortSignal;
}

export interface EventStore {
  appendToStream<E extends DomainEvent>(
    stream: string,
    events: NewEvent<E>[],
    options: { expectedVersion: ExpectedVersion },
  ): Promise<AppendResult>;
  /**
   * The stream's events in order; with `fromVersion`, only those after it (a holder of the state
   * at that version catches up without reading the whole stream). `version` is the stream's
   * version after the events returned (`fromVersion` when there are none).
   */
  readStream<E extends DomainEvent>(stream: string, options?: ReadStreamOptions): Promise<ReadStreamResult<E>>;
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the newest event in the store (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Batches of events after `after`, in commit order, forever: woken by the store's own signal,
   * polling as a fallback. Ends when the signal aborts.
   */
  subscribe(options: SubscribeOptions): AsyncIterable<RecordedEvent[]>;
  close(): Promise<void>;
}

export class WrongExpectedVersionError extends Error {
  override readonly name = 'WrongExpectedVersionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`stream ${stream} is at version ${actual}, expected ${expected}`);
  }
}

/** An event id that already exists, but not as the same event of the same stream. */
export class DuplicateEventIdError extends Error {
  override readonly name = 'DuplicateEventIdError';
  constructor(
    readonly stream: string,
    readonly eventId: string,
  ) {
    super(`event ${eventId} already exists outside stream ${stream} or at another position`);
  }
}

/** `<category>-<id>`: the category is the part before the first `-`. */
export function streamCategory(stream: string): string {
  const dash = stream.indexOf('-');
  return dash === -1 ? stream : stream.slice(0, dash);
}
