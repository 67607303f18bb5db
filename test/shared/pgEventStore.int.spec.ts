import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createPool, type Pool } from '#shared/db.ts';
import { DuplicateEventIdError } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { eventStoreContract } from './eventStore.contract.ts';

let url: string;
let pool: Pool;

before(async function () {
  this.timeout(60_000);
  url = await createTestDatabase('event_store');
  pool = createPool(url);
  await migrateEventStore(pool);
  await migrateEventStore(pool); // a second start finds it migrated
});
after(async () => pool?.end());

eventStoreContract('PostgreSQL', async () => ({ store: createPgEventStore({ pool, connectionString: url, pollIntervalMs: 200 }) }));

describe('PostgreSQL event store (adapter specifics)', () => {
  const metadata = { correlationId: 'c', causationId: 'c', actor: 'system', at: '2026-11-22T00:00:00.000Z' };

  it('refuses an event id that already exists in another stream', async () => {
    const store = createPgEventStore({ pool, connectionString: url });
    const id = randomUUID();
    await store.appendToStream(`a-${randomUUID()}`, [{ id, type: 'Happened', data: {}, metadata }], { expectedVersion: 0 });
    const error = await store
      .appendToStream(`b-${randomUUID()}`, [{ id, type: 'Happened', data: {}, metadata }], { expectedVersion: 0 })
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DuplicateEventIdError);
    await store.close();
  });

  it('refuses a batch that repeats an id, writing none of it', async () => {
    const store = createPgEventStore({ pool, connectionString: url });
    const stream = `a-${randomUUID()}`;
    const id = randomUUID();
    const twice = [{ id, type: 'Happened', data: {}, metadata }, { id, type: 'Happened', data: {}, metadata }];
    const error = await store.appendToStream(stream, twice, { expectedVersion: 0 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DuplicateEventIdError);
    expect((await store.readStream(stream)).version).to.equal(0);
    await store.close();
  });

  it('keeps serving by polling when the notice connection cannot be made', async () => {
    const store = createPgEventStore({ pool, connectionString: 'postgres://nobody@127.0.0.1:1/none', pollIntervalMs: 50 });
    const stream = `a-${randomUUID()}`;
    const after = await store.headPosition();
    const controller = new AbortController();
    const got = (async () => {
      for await (const batch of store.subscribe({ after, signal: controller.signal })) {
        if (batch.some((e) => e.stream === stream)) return true;
      }
      return false;
    })();
    await store.appendToStream(stream, [{ type: 'Happened', data: {}, metadata }], { expectedVersion: 0 });
    expect(await got).to.equal(true);
    controller.abort();
    await store.close();
  });
});
