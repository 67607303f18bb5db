import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { WrongExpectedVersionError, type EventStore, type NewEvent, type RecordedEvent } from '#shared/eventStore/eventStore.ts';

export interface EventStoreUnderTest {
  store: EventStore;
  teardown?: () => Promise<void>;
}

const metadata = { correlationId: 'c-1', causationId: 'c-1', actor: 'system', at: '2026-11-22T00:00:00.000Z' };

function event(n: number, id?: string): NewEvent {
  return { ...(id ? { id } : {}), type: 'CounterIncremented', data: { n }, metadata };
}

function freshStream(): string {
  return `counter-${randomUUID()}`;
}

/** Appends and returns the error it threw, or undefined. */
async function appendOutcome(store: EventStore, stream: string, expectedVersion: number): Promise<'won' | 'conflict'> {
  try {
    await store.appendToStream(stream, [event(expectedVersion + 1)], { expectedVersion });
    return 'won';
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return 'conflict';
    throw error;
  }
}

/** Collects events from a subscription until `enough` says so; bounded in time. */
async function collect(store: EventStore, after: number, enough: (seen: RecordedEvent[]) => boolean, timeoutMs = 15_000) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const seen: RecordedEvent[] = [];
  try {
    for await (const batch of store.subscribe({ after, batchSize: 37, signal: controller.signal })) {
      seen.push(...batch);
      if (enough(seen)) break;
    }
  } finally {
    clearTimeout(timer);
  }
  if (!enough(seen)) throw new Error(`subscription timed out with ${seen.length} events`);
  return seen;
}

/**
 * The one contract every event store adapter passes. `setup` gives a store on a fresh or shared
 * backend; tests use fresh stream ids, so a shared backend is fine.
 */
export function eventStoreContract(name: string, setup: () => Promise<EventStoreUnderTest>): void {
  describe(`${name} event store (contract)`, function () {
    this.timeout(60_000);
    let current: EventStoreUnderTest;
    let store: EventStore;

    beforeEach(async () => {
      current = await setup();
      store = current.store;
    });
    afterEach(async () => {
      await store.close();
      await current.teardown?.();
    });

    it('appends to a new stream with expected version 0 and reads it back in order', async () => {
      const stream = freshStream();
      const result = await store.appendToStream(stream, [event(1), event(2), event(3)], { expectedVersion: 0 });
      expect(result.nextVersion).to.equal(3);
      const read = await store.readStream(stream);
      expect(read.version).to.equal(3);
      expect(read.events.map((e) => e.version)).to.deep.equal([1, 2, 3]);
      expect(read.events.map((e) => e.data)).to.deep.equal([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect(read.events[0]).to.include({ stream, type: 'CounterIncremented' });
      expect(read.events[0]?.metadata).to.include(metadata);
      expect(read.events.at(-1)?.globalPosition).to.equal(result.lastGlobalPosition);
      const positions = read.events.map((e) => e.globalPosition);
      expect(positions).to.deep.equal([...positions].sort((a, b) => a - b));
    });

    it('reads only the events after a version, and says the version when there are none', async () => {
      const stream = freshStream();
      await store.appendToStream(stream, [event(1), event(2), event(3)], { expectedVersion: 0 });
      const tail = await store.readStream(stream, { fromVersion: 1 });
      expect(tail.version).to.equal(3);
      expect(tail.events.map((e) => e.data)).to.deep.equal([{ n: 2 }, { n: 3 }]);
      expect(await store.readStream(stream, { fromVersion: 3 })).to.deep.equal({ version: 3, events: [] });
      expect(await store.readStream(freshStream(), { fromVersion: 0 })).to.deep.equal({ version: 0, events: [] });
    });

    it('reads a stream that does not exist as version 0 with no events', async () => {
      expect(await store.readStream(freshStream())).to.deep.equal({ version: 0, events: [] });
    });

    it('appends with the right expected version and refuses a wrong one, naming the actual version', async () => {
      const stream = freshStream();
      await store.appendToStream(stream, [event(1)], { expectedVersion: 0 });
      await store.appendToStream(stream, [event(2)], { expectedVersion: 1 });
      const error = await store.appendToStream(stream, [event(3)], { expectedVersion: 1 }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(WrongExpectedVersionError);
      expect(error).to.include({ stream, expected: 1, actual: 2 });
      const missing = await store.appendToStream(freshStream(), [event(1)], { expectedVersion: 4 }).catch((e: unknown) => e);
      expect(missing).to.be.instanceOf(WrongExpectedVersionError).and.include({ actual: 0 });
      expect((await store.readStream(stream)).version).to.equal(2);
    });

    it("appends with 'any' whatever the version", async () => {
      const stream = freshStream();
      await store.appendToStream(stream, [event(1)], { expectedVersion: 'any' });
      const result = await store.appendToStream(stream, [event(2)], { expectedVersion: 'any' });
      expect(result.nextVersion).to.equal(2);
    });

    it('lets exactly one of 20 concurrent appenders win each version', async () => {
      const stream = freshStream();
      for (let version = 0; version < 5; version++) {
        const outcomes = await Promise.all(Array.from({ length: 20 }, () => appendOutcome(store, stream, version)));
        expect(outcomes.filter((o) => o === 'won'), `version ${version}`).to.have.length(1);
      }
      const read = await store.readStream(stream);
      expect(read.events.map((e) => e.data)).to.deep.equal([1, 2, 3, 4, 5].map((n) => ({ n })));
    });

    it('delivers to a subscriber every event of 8 concurrent writers exactly once, in commit order', async () => {
      const after = await store.headPosition();
      const streams = Array.from({ length: 8 }, freshStream);
      const perStream = 40;
      const mine = (seen: RecordedEvent[]) => seen.filter((e) => streams.includes(e.stream));
      const subscriber = collect(store, after, (seen) => mine(seen).length >= streams.length * perStream);
      await Promise.all(
        streams.map(async (stream) => {
          for (let n = 1; n <= perStream; n++) await store.appendToStream(stream, [event(n)], { expectedVersion: n - 1 });
        }),
      );
      const seen = await subscriber;
      const ids = seen.map((e) => e.id);
      expect(new Set(ids).size, 'no event twice').to.equal(ids.length);
      const positions = seen.map((e) => e.globalPosition);
      expect(positions, 'strictly increasing').to.deep.equal([...new Set(positions)].sort((a, b) => a - b));
      for (const stream of streams) {
        const versions = seen.filter((e) => e.stream === stream).map((e) => e.version);
        expect(versions).to.deep.equal(Array.from({ length: perStream }, (_, i) => i + 1));
      }
      const all = await store.readAll({ after, limit: 100_000 });
      expect(all.map((e) => e.id), 'the subscriber saw what readAll sees, no gaps').to.deep.equal(ids.slice(0, all.length));
    });

    it('resumes a subscription from a checkpoint after a restart', async () => {
      const stream = freshStream();
      const start = await store.headPosition();
      await store.appendToStream(stream, [event(1), event(2), event(3)], { expectedVersion: 0 });
      const first = await collect(store, start, (seen) => seen.filter((e) => e.stream === stream).length >= 2);
      const checkpoint = first.filter((e) => e.stream === stream)[1]!.globalPosition;
      await store.close();
      await current.teardown?.();

      current = await setup();
      store = current.store;
      await store.appendToStream(stream, [event(4)], { expectedVersion: 3 });
      const rest = await collect(store, checkpoint, (seen) => seen.filter((e) => e.stream === stream).length >= 2);
      expect(rest.filter((e) => e.stream === stream).map((e) => e.data)).to.deep.equal([{ n: 3 }, { n: 4 }]);
    });

    it('treats a re-append of the same event ids as done, writing nothing twice', async () => {
      const stream = freshStream();
      const batch = [event(1, randomUUID()), event(2, randomUUID())];
      const first = await store.appendToStream(stream, batch, { expectedVersion: 0 });
      const again = await store.appendToStream(stream, batch, { expectedVersion: 0 });
      expect(again).to.deep.equal(first);
      const anyAgain = await store.appendToStream(stream, batch, { expectedVersion: 'any' });
      expect(anyAgain.nextVersion).to.equal(2);
      expect((await store.readStream(stream)).events).to.have.length(2);
    });

    it('pages through the global feed with after and limit', async () => {
      const stream = freshStream();
      const after = await store.headPosition();
      await store.appendToStream(stream, [1, 2, 3, 4, 5].map((n) => event(n)), { expectedVersion: 0 });
      const firstPage = (await store.readAll({ after, limit: 2 })).filter((e) => e.stream === stream);
      expect(firstPage.map((e) => e.data)).to.deep.equal([{ n: 1 }, { n: 2 }]);
      const rest = await store.readAll({ after: firstPage[1]!.globalPosition, limit: 100 });
      expect(rest.filter((e) => e.stream === stream).map((e) => e.data)).to.deep.equal([{ n: 3 }, { n: 4 }, { n: 5 }]);
      expect(await store.headPosition()).to.equal(rest.at(-1)!.globalPosition);
    });
  });
}
