import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createPool, type Pool } from '#shared/db.ts';
import { DomainError, foldEvents } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { systemMetadata } from '#shared/decider/systemMetadata.ts';
import { WrongExpectedVersionError, type EventStore } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { counterDecider } from '#test/support/counterDecider.ts';
import { createTestDatabase } from '#test/support/postgres.ts';

const metadata = { correlationId: 'c', causationId: 'c', actor: 'user-1', at: '2026-11-22T00:00:00.000Z' };

/** A store whose appends first let a rival writer append `rivals` times, to lose the race on purpose. */
function racingStore(store: EventStore, rivals: number): EventStore {
  let left = rivals;
  return {
    ...store,
    async appendToStream(stream, events, options) {
      if (left-- > 0) await store.appendToStream(stream, [{ type: 'CounterIncremented', data: { by: 1 }, metadata }], { expectedVersion: 'any' });
      return store.appendToStream(stream, events, options);
    },
  };
}

describe('handleCommand', () => {
  let pool: Pool;
  let store: EventStore;

  before(async function () {
    this.timeout(60_000);
    const url = await createTestDatabase('commands');
    pool = createPool(url);
    await migrateEventStore(pool);
    store = createPgEventStore({ pool, connectionString: url });
  });
  after(async () => {
    await store.close();
    await pool.end();
  });

  it('appends the decided events with their metadata and returns the version and position', async () => {
    const stream = `counter-${randomUUID()}`;
    const result = await handleCommand(store, counterDecider, stream, { type: 'Increment', by: 3 }, { metadata });
    expect(result.nextVersion).to.equal(1);
    expect(result.events).to.deep.equal([{ type: 'CounterIncremented', data: { by: 3 } }]);
    const read = await store.readStream(stream);
    expect(read.events[0]?.globalPosition).to.equal(result.lastGlobalPosition);
    expect(read.events[0]?.metadata.actor).to.equal('user-1');
  });

  it('appends nothing when the decider decides nothing', async () => {
    const stream = `counter-${randomUUID()}`;
    const result = await handleCommand(store, counterDecider, stream, { type: 'Reset' }, { metadata });
    expect(result).to.deep.include({ nextVersion: 0, lastGlobalPosition: undefined, events: [] });
  });

  it('decides on a state the caller holds, reading only the events appended since when the append finds the stream moved on', async () => {
    const stream = `counter-${randomUUID()}`;
    const first = await handleCommand(store, counterDecider, stream, { type: 'Increment', by: 1 }, { metadata });
    expect(first.aggregate).to.include({ version: 1 });
    await handleCommand(store, counterDecider, stream, { type: 'Increment', by: 2 }, { metadata });
    const reads: Array<number | undefined> = [];
    const watched = { ...store, readStream: ((name: string, options?: { fromVersion?: number }) => (reads.push(options?.fromVersion), store.readStream(name, options))) as typeof store.readStream };
    const result = await handleCommand(watched, counterDecider, stream, { type: 'Increment', by: 3 }, { metadata, known: first.aggregate });
    expect(reads, 'one read, of what came after the known version').to.deep.equal([1]);
    expect(result.aggregate.version).to.equal(3);
    expect(result.aggregate.state).to.deep.equal(foldEvents(counterDecider, (await store.readStream(stream)).events.map(({ type, data }) => ({ type, data }) as never)));
  });

  it('builds the metadata from the state it decides on, so a system event names the event it follows from', async () => {
    const stream = `counter-${randomUUID()}`;
    await handleCommand(store, counterDecider, stream, { type: 'Increment', by: 1 }, { metadata });
    const [cause] = (await store.readStream(stream)).events;
    await handleCommand(store, counterDecider, stream, { type: 'Increment', by: 2 }, { metadata: ({ lastEvent }) => systemMetadata({ via: 'test', causedBy: lastEvent! }) });
    const [, caused] = (await store.readStream(stream)).events;
    expect(caused?.metadata).to.include({ causationId: cause?.id, correlationId: cause?.metadata.correlationId, actor: 'system', via: 'test' });
  });

  it('retries a lost race on the newer state', async () => {
    const stream = `counter-${randomUUID()}`;
    const result = await handleCommand(racingStore(store, 2), counterDecider, stream, { type: 'Increment', by: 5 }, { metadata });
    expect(result.nextVersion).to.equal(3);
  });

  it('decides again on the newer state, so a rule broken by the rival is caught', async () => {
    const stream = `counter-${randomUUID()}`;
    await handleCommand(store, counterDecider, stream, { type: 'Increment', by: 9 }, { metadata });
    const error = await handleCommand(racingStore(store, 1), counterDecider, stream, { type: 'Increment', by: 1 }, { metadata }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DomainError);
  });

  it('gives up after the bounded number of retries', async () => {
    const stream = `counter-${randomUUID()}`;
    const error = await handleCommand(racingStore(store, 5), counterDecider, stream, { type: 'Increment', by: 1 }, { metadata, maxRetries: 2 }).catch(
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(WrongExpectedVersionError);
  });
});

describe('handleCommand metadata', () => {
  it('refuses metadata without an actor or a valid time, before touching the store', async () => {
    const untouchable = new Proxy({} as EventStore, {
      get() {
        throw new Error('the store must not be used');
      },
    });
    const bad = { correlationId: 'c', causationId: 'c', actor: '', at: 'yesterday' };
    const error = await handleCommand(untouchable, counterDecider, 'counter-x', { type: 'Increment', by: 1 }, { metadata: bad }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(TypeError);
    expect((error as Error).message).to.match(/metadata is invalid: .*actor.*; .*at/);
  });
});
