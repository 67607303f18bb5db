import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type CurrentRevision,
  type JSONType,
  type Position,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  WrongExpectedVersionError,
  type DomainEvent,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../eventStore.ts';

/*
 * Global positions. Since EventStoreDB 20 a gRPC append writes one self-committed prepare record per
 * event (flag IsCommitted, no separate commit record), also when the events come in one batch. $all
 * reports such an event at (commit, prepare) = (its own log position, its own log position): see
 * AllReader.ReadAllEventsForward, ResolvedEvent.CalculatePosition and IndexCommitter (EventCommitted)
 * in the server. So within a batch each event has its own commit position, and commit positions rise
 * strictly in $all order: `globalPosition` is the commit position. Events that share a commit position
 * came from explicit TCP transactions (commit ≠ prepare), which gRPC cannot write; we refuse them
 * rather than give two events one position.
 *
 * Back to a read position: a number n is where an event's record begins in the log, so
 * {commit: n, prepare: n} is exactly that event's $all position, a record boundary the server can
 * reposition its reader to (an arbitrary byte offset would not be). Forward reads and subscriptions
 * from it may include that event itself, so everything at or before n is dropped here.
 */

/** A global position as the `after` of a read: 0 (or less) is the start of $all. */
function toReadPosition(after: number): ReadPosition {
  return after <= 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };
}

function toGlobalPosition(position: Position | undefined): number {
  // Stream reads report no position on servers before 22.6 (or the all-ones "none" value).
  if (!position || position.commit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error('EventStoreDB reported no log position for an event (server older than 22.6?)');
  }
  if (position.commit !== position.prepare) {
    const at = `${position.commit}/${position.prepare}`;
    throw new Error(`event at ${at} was not self-committed, so one number cannot order it`);
  }
  return Number(position.commit);
}

/** System events (`$`-typed: links, metadata, stats) and system streams are not part of the domain feed. */
function isSystem(event: EsdbRecordedEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

function toRecorded(event: EsdbRecordedEvent): RecordedEvent {
  return {
    id: event.id,
    stream: event.streamId,
    type: event.type,
    data: event.data,
    metadata: (event.metadata ?? {}) as EventMetadata,
    version: Number(event.revision) + 1,
    globalPosition: toGlobalPosition(event.position),
    recordedAt: event.created,
  };
}

/** A stream's version from a revision the server reports: revision + 1, 0 for no stream. */
function toVersion(revision: CurrentRevision): number {
  return revision === NO_STREAM ? 0 : Math.max(0, Number(revision) + 1);
}

function toExpectedRevision(expected: ExpectedVersion) {
  if (expected === 'any') return ANY;
  if (!Number.isSafeInteger(expected) || expected < 0) throw new RangeError(`bad expected version ${expected}`);
  return expected === 0 ? NO_STREAM : BigInt(expected - 1);
}

/** Reads a whole (bounded) read to the end; never breaks off early, so no call is cancelled. */
async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of read) items.push(item);
  return items;
}

/**
 * The EventStoreDB event store (`EVENTSTORE_URL`, e.g. `esdb://eventstore:2113?tls=false`).
 * Version = revision + 1; re-appending events with the same ids is a no-op through the server's own
 * idempotency check (guaranteed for a numeric expected version, best effort for `'any'`).
 */
export function createEsdbEventStore(connectionString: string): EventStore {
  const client = EventStoreDBClient.connectionString(connectionString);

  async function positionOf(stream: string, revision: bigint): Promise<number> {
    const read = client.readStream(stream, { fromRevision: revision, maxCount: 1, requiresLeader: true });
    const [resolved] = await collect(read);
    if (!resolved?.event) throw new Error(`event ${revision} of ${stream} is missing right after its append`);
    return toGlobalPosition(resolved.event.position);
  }

  async function versionOf(stream: string): Promise<number> {
    try {
      const [last] = await collect(client.readStream(stream, { fromRevision: END, direction: BACKWARDS, maxCount: 1 }));
      return last?.event ? Number(last.event.revision) + 1 : 0;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return 0;
      throw error;
    }
  }

  async function readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    // One more than needed: a forward read includes the event at its start position.
    const pageSize = Math.min(Math.max(limit, 64), 4096) + 1;
    let cursor = after;
    while (found.length < limit) {
      const read = client.readAll({ fromPosition: toReadPosition(cursor), direction: FORWARDS, maxCount: pageSize });
      const page = await collect(read);
      const start = cursor;
      for (const { event } of page) {
        if (!event || Number(event.position.commit) <= cursor) continue;
        cursor = Number(event.position.commit);
        if (isSystem(event)) continue;
        found.push(toRecorded(event));
        if (found.length === limit) break;
      }
      if (page.length < pageSize || cursor === start) break;
    }
    return found;
  }

  return {
    async appendToStream(stream, events, { expectedVersion }) {
      if (events.length === 0) throw new Error('appendToStream needs at least one event');
      const expectedRevision = toExpectedRevision(expectedVersion);
      let result;
      try {
        result = await client.appendToStream(stream, events.map(toEventData), { expectedRevision });
      } catch (error) {
        if (error instanceof EsdbWrongExpectedVersionError) {
          throw new WrongExpectedVersionError(stream, expectedVersion, toVersion(error.actualVersion));
        }
        throw error;
      }
      // Only with `throwOnAppendFailure=false` in the connection string; its revision is unreliable.
      if (!result.success) throw new WrongExpectedVersionError(stream, expectedVersion, await versionOf(stream));
      // The append reply's position is absent for an idempotent re-append and not documented per event
      // for a batch, so read the last event back: a re-append then answers exactly like the first one.
      return {
        nextVersion: Number(result.nextExpectedRevision) + 1,
        lastGlobalPosition: await positionOf(stream, result.nextExpectedRevision),
      };
    },

    async readStream<E extends DomainEvent>(stream: string) {
      let resolved;
      try {
        resolved = await collect(client.readStream(stream));
      } catch (error) {
        if (error instanceof StreamNotFoundError) return { version: 0, events: [] };
        throw error;
      }
      const events = resolved.flatMap(({ event }) => (event ? [toRecorded(event) as RecordedEvent<E>] : []));
      return { version: events.at(-1)?.version ?? 0, events };
    },

    readAll,

    async headPosition() {
      const pageSize = 256;
      let from: ReadPosition = END;
      for (;;) {
        const page: AllStreamResolvedEvent[] = await collect(
          client.readAll({ fromPosition: from, direction: BACKWARDS, maxCount: pageSize }),
        );
        const newest = page.find(({ event }) => event && !isSystem(event))?.event;
        if (newest) return toGlobalPosition(newest.position);
        const oldest = page.at(-1)?.event;
        if (page.length < pageSize || !oldest) return 0;
        // A backward read excludes the event at its start position, so this does not loop.
        from = oldest.position;
      }
    },

    subscribe(options: SubscribeOptions) {
      return subscribeToAll(client, options);
    },

    async close() {
      await client.dispose();
    },
  };
}

function toEventData(event: NewEvent) {
  return jsonEvent({
    id: event.id ?? randomUUID(),
    type: event.type,
    // `undefined` is not JSON; the PostgreSQL adapter stores it as null too.
    data: (event.data ?? null) as JSONType,
    metadata: event.metadata,
  });
}

/** Above this many buffered events the subscription is paused, so gRPC flow control holds the rest. */
const HIGH_WATER = 10_000;

/**
 * Yields what the server pushed since the consumer last asked, in batches of at most `batchSize`,
 * until `signal` aborts. A dropped subscription (server restart, error) is thrown, not retried: the
 * caller resumes from its own checkpoint.
 */
async function* subscribeToAll(
  client: EventStoreDBClient,
  options: SubscribeOptions,
): AsyncGenerator<RecordedEvent[]> {
  const { signal } = options;
  const batchSize = options.batchSize ?? 1000;
  if (signal?.aborted) return;
  const subscription = client.subscribeToAll({ fromPosition: toReadPosition(options.after), filter: excludeSystemEvents() });
  const buffer: RecordedEvent[] = [];
  let last = options.after;
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const onData = (resolved: AllStreamResolvedEvent) => {
    const event = resolved.event;
    try {
      // The server's filter drops `$` types; `$` streams and the start event itself are dropped here.
      if (!event || isSystem(event) || Number(event.position.commit) <= last) return;
      const recorded = toRecorded(event);
      last = recorded.globalPosition;
      buffer.push(recorded);
      if (buffer.length >= HIGH_WATER) subscription.pause();
    } catch (error) {
      failure ??= error;
    }
    notify();
  };
  // Stays attached after the loop: an error emitted while cancelling must not crash the process.
  subscription.on('error', (error: Error) => {
    failure ??= error;
    notify();
  });
  subscription.on('data', onData);
  subscription.on('end', () => {
    ended = true;
    notify();
  });
  signal?.addEventListener('abort', notify);

  try {
    while (!signal?.aborted) {
      if (buffer.length === 0) {
        if (failure !== undefined) throw failure;
        if (ended) throw new Error('EventStoreDB ended the $all subscription');
        await new Promise<void>((resolve) => (wake = resolve));
        // Let the events of the same network read land in one batch.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      const batch = buffer.splice(0, batchSize);
      if (subscription.isPaused() && buffer.length < HIGH_WATER / 2) subscription.resume();
      yield batch;
    }
  } finally {
    signal?.removeEventListener('abort', notify);
    subscription.off('data', onData);
    await subscription.unsubscribe().catch(() => undefined);
  }
}
