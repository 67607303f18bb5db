import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sql } from 'kysely';
import { migrateReadModel } from '#projections/migrations/index.ts';
import type { ReadModel, ReadModelDatabase } from '#projections/readModel.ts';
import { readCheckpoint } from '#projections/runner/checkpoints.ts';
import { startProjection } from '#projections/runner/projectionRunner.ts';
import { rebuildProjection } from '#projections/runner/rebuild.ts';
import { ProjectionTimeoutError, waitForPosition } from '#projections/runner/waitForPosition.ts';
import { streamActivityProjection } from '#projections/streamActivity/streamActivity.ts';
import { createKysely, createPool, type Pool } from '#shared/db.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { silentLogger } from '#shared/log.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { createRecordingTable, recordingProjection } from '#test/support/slowProjection.ts';
import { waitUntil } from '#test/support/wait.ts';

const metadata = { correlationId: 'c', causationId: 'c', actor: 'user-7', at: '2026-11-22T00:00:00.000Z' };

describe('projection runner', function () {
  this.timeout(60_000);
  let url: string;
  let pool: Pool;
  let store: EventStore;
  let readModel: ReadModel;
  let deps: Parameters<typeof startProjection>[1];

  before(async () => {
    url = await createTestDatabase('projections');
    pool = createPool(url);
    await migrateEventStore(pool);
    await migrateReadModel(createKysely(pool));
    store = createPgEventStore({ pool, connectionString: url, pollIntervalMs: 100 });
    readModel = createKysely<ReadModelDatabase>(pool).withSchema('read_model');
    deps = { store, db: readModel, connectionString: url, logger: silentLogger, batchSize: 50, retryMs: 100 };
  });
  after(async () => {
    await store.close();
    await pool.end();
  });

  async function appendMany(streams: number, perStream: number): Promise<number> {
    let last = 0;
    for (let s = 0; s < streams; s++) {
      const stream = `thing-${randomUUID()}`;
      for (let n = 0; n < perStream; n += 10) {
        const batch = Array.from({ length: Math.min(10, perStream - n) }, (_, i) => ({ type: `Thing${(n + i) % 3}Happened`, data: { n: n + i }, metadata }));
        last = (await store.appendToStream(stream, batch, { expectedVersion: n })).lastGlobalPosition;
      }
    }
    return last;
  }

  const rows = (table: string) => sql<Record<string, unknown>>`select * from read_model.${sql.raw(table)} order by 1`.execute(readModel).then((r) => r.rows);

  it('keeps a read model and its checkpoint, and read-your-writes waits for it', async () => {
    const runner = startProjection(streamActivityProjection, deps);
    try {
      const last = await appendMany(3, 25);
      await waitForPosition(readModel, 'stream_activity', last, { timeoutMs: 10_000 });
      const activity = await readModel.selectFrom('stream_activity').selectAll().where('version', '=', 25).execute();
      expect(activity.length).to.be.at.least(3);
      const status = await runner.status();
      expect(status).to.include({ name: 'stream_activity', kind: 'projection', active: true, lag: 0 });
      expect(status.checkpoint).to.equal(await store.headPosition());
    } finally {
      await runner.stop();
    }
  });

  it('reports lag while stopped, and a clear timeout when read-your-writes waits too long', async () => {
    const last = await appendMany(1, 5);
    const error = await waitForPosition(readModel, 'stream_activity', last, { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProjectionTimeoutError);
    expect((error as Error).message).to.match(/did not reach position \d+ within 100 ms/);
  });

  it('replays to identical tables, twice', async () => {
    await appendMany(4, 12);
    const first = await rebuildProjection(streamActivityProjection, deps);
    const once = await rows('stream_activity');
    const second = await rebuildProjection(streamActivityProjection, deps);
    expect(second).to.equal(first);
    expect(await rows('stream_activity')).to.deep.equal(once);
    expect(await readCheckpoint(readModel, 'stream_activity')).to.equal(await store.headPosition());
  });

  it('lets one runner per projection be active; the standby takes over when it stops', async () => {
    const a = startProjection(streamActivityProjection, deps);
    await waitUntil(async () => (await a.status()).active, 'the first runner to be active');
    const b = startProjection(streamActivityProjection, deps);
    const rebuild = await rebuildProjection(streamActivityProjection, deps).catch((e: unknown) => e);
    expect((rebuild as Error).message).to.match(/running in another process/);
    expect((await b.status()).active).to.equal(false);
    await a.stop();
    await waitUntil(async () => (await b.status()).active, 'the standby to take over');
    const last = await appendMany(1, 3);
    await waitForPosition(readModel, 'stream_activity', last);
    await b.stop();
  });

  it('retries a failing batch from its checkpoint and reports the error meanwhile', async () => {
    const table = `flaky_${randomUUID().slice(0, 8)}`;
    await createRecordingTable(readModel, table);
    let failuresLeft = 2;
    const recording = recordingProjection(`flaky_${table}`, table);
    const flaky = { ...recording, apply: async (trx: never, events: never[]) => (failuresLeft-- > 0 ? Promise.reject(new Error('disk on fire')) : recording.apply(trx, events)) };
    const runner = startProjection(flaky, deps);
    await waitUntil(async () => (await runner.status()).lastError === 'disk on fire', 'the error to show');
    await waitUntil(async () => (await runner.status()).lag === 0, 'the runner to catch up');
    const [{ count, distinct }] = (await sql<{ count: number; distinct: number }>`select count(*)::int as count, count(distinct global_position)::int as distinct from read_model.${sql.raw(table)}`.execute(readModel)).rows as [{ count: number; distinct: number }];
    expect(count).to.equal(distinct);
    await runner.stop();
  });

  it('applies no event twice and loses none when the projector is killed mid-batch', async () => {
    const table = `crash_${randomUUID().slice(0, 8)}`;
    const name = `crash_${table}`;
    await createRecordingTable(readModel, table);
    const start = await store.headPosition();
    const last = await appendMany(5, 100);
    const stallAt = start + 320;

    const child = fork('test/support/projectorChild.ts', [url, name, table, String(stallAt)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.on('message', (message) => message === 'mid-batch' && resolve());
      child.on('exit', (code) => reject(new Error(`projector child exited early (${code})`)));
    });
    const committed = await readCheckpoint(readModel, name);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(committed).to.be.above(start).and.below(stallAt);
    const [{ count }] = (await sql<{ count: number }>`select count(*)::int as count from read_model.${sql.raw(table)}`.execute(readModel)).rows as [{ count: number }];
    expect(count, 'the killed batch left nothing behind').to.equal(committed);

    const runner = startProjection(recordingProjection(name, table), deps);
    await waitForPosition(readModel, name, last, { timeoutMs: 20_000 });
    await runner.stop();
    const applied = await sql<{ global_position: number; times: number }>`
      select global_position, count(*)::int as times from read_model.${sql.raw(table)} group by 1 order by 1`.execute(readModel);
    expect(applied.rows.every((row) => row.times === 1), 'no event applied twice').to.equal(true);
    expect(applied.rows.map((row) => row.global_position)).to.deep.equal(Array.from({ length: last }, (_, i) => i + 1));
  });
});
