import { randomUUID } from 'node:crypto';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type JSONType,
  type ReadPosition,
} from '@eventstore/db-client';
import {
  WrongExpectedVersionError,
  type DomainEvent,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../eventStore.ts';
import { isSystem, toExpectedRevision, toGlobalPosition, toReadPosition, toRecorded, toVersion } from './esdbMapping.ts';
import { subscribeToAll } from './esdbSubscription.ts';

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

    async readStream<E extends DomainEvent>(stream: string, { fromVersion = 0 }: ReadStreamOptions = {}) {
      let resolved;
      try {
        // Revisions count from 0: the event after version n is at revision n.
        resolved = await collect(client.readStream(stream, fromVersion > 0 ? { fromRevision: BigInt(fromVersion) } : {}));
      } catch (error) {
        if (error instanceof StreamNotFoundError) return { version: fromVersion, events: [] };
        throw error;
      }
      const events = resolved.flatMap(({ event }) => (event ? [toRecorded(event) as RecordedEvent<E>] : []));
      return { version: events.at(-1)?.version ?? fromVersion, events };
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
