import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { migrateReadModel } from '#projections/migrations/index.ts';
import { workRelayReactor, type WorkMessageBody } from '#projections/reactors/workRelay.ts';
import type { ReadModel, ReadModelDatabase } from '#projections/readModel.ts';
import { startReactor } from '#projections/runner/projectionRunner.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import type { Bus } from '#shared/bus/bus.ts';
import { createMemoryBus } from '#shared/bus/memoryBus.ts';
import { createKysely, createPool, type Pool } from '#shared/db.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { silentLogger } from '#shared/log.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';

const metadata = { correlationId: 'c', causationId: 'c', actor: 'system', at: '2026-11-22T00:00:00.000Z' };

describe('work relay reactor', function () {
  this.timeout(30_000);
  let url: string;
  let pool: Pool;
  let store: EventStore;
  let bus: Bus;
  let readModel: ReadModel;

  before(async () => {
    url = await createTestDatabase('relay');
    pool = createPool(url);
    await migrateEventStore(pool);
    await migrateReadModel(createKysely(pool));
    store = createPgEventStore({ pool, connectionString: url, pollIntervalMs: 100 });
    readModel = createKysely<ReadModelDatabase>(pool).withSchema('read_model');
  });
  beforeEach(() => {
    bus = createMemoryBus();
  });
  afterEach(() => bus.close());
  after(async () => {
    await store.close();
    await pool.end();
  });

  const deps = () => ({ store, db: readModel, connectionString: url, logger: silentLogger, batchSize: 10, retryMs: 50 });

  it('queues routed events as work with the event id as message id, and skips the others', async () => {
    const received: WorkMessageBody[] = [];
    const controller = new AbortController();
    void bus.consume({ durable: 'test', filter: 'work.test.>', signal: controller.signal }, async (message) => {
      received.push(message.json<WorkMessageBody>());
      expect(message.msgId).to.equal(received.at(-1)?.eventId);
      message.ack();
    });
    const runner = startReactor(workRelayReactor(bus, { ThingRequested: 'work.test.things' }), deps());
    const stream = `thing-${randomUUID()}`;
    const { lastGlobalPosition } = await store.appendToStream(
      stream,
      [
        { type: 'ThingRequested', data: { name: 'a' }, metadata },
        { type: 'ThingRenamed', data: { name: 'b' }, metadata },
        { type: 'ThingRequested', data: { name: 'c' }, metadata },
      ],
      { expectedVersion: 0 },
    );
    await waitForPosition(readModel, 'work_relay', lastGlobalPosition);
    await waitUntil(() => received.length === 2, 'two work messages');
    expect(received.map((body) => body.data)).to.deep.equal([{ name: 'a' }, { name: 'c' }]);
    expect(received[0]).to.include({ stream, type: 'ThingRequested' });
    controller.abort();
    await runner.stop();
  });

  it('does not queue work twice when a batch is relayed again after a crash', async () => {
    const events = await store.readAll({ after: 0, limit: 100 });
    const relay = workRelayReactor(bus, { ThingRequested: 'work.test.things' });
    await relay.handle(events.filter((e) => e.type === 'ThingRequested'));
    await relay.handle(events.filter((e) => e.type === 'ThingRequested'));
    let delivered = 0;
    const controller = new AbortController();
    void bus.consume({ durable: 'again', filter: 'work.test.>', signal: controller.signal }, async (message) => {
      delivered++;
      message.ack();
    });
    await waitUntil(() => delivered >= 2, 'deliveries');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(delivered).to.equal(2);
    controller.abort();
  });
});
