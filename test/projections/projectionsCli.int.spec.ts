import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { projections } from '#projections/registry.ts';
import { createPool } from '#shared/db.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { createTestDatabase } from '#test/support/postgres.ts';

function run(script: string, args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, encoding: 'utf8' });
}

describe('projections command line', function () {
  this.timeout(60_000);
  let url: string;

  before(async () => {
    url = await createTestDatabase('cli');
    const pool = createPool(url);
    await migrateEventStore(pool);
    const store = createPgEventStore({ pool, connectionString: url });
    const metadata = { correlationId: 'c', causationId: 'c', actor: 'system', at: '2026-11-22T00:00:00.000Z' };
    await store.appendToStream(`thing-${randomUUID()}`, [1, 2, 3].map((n) => ({ type: 'ThingHappened', data: { n }, metadata })), { expectedVersion: 0 });
    await store.close();
    await pool.end();
  });

  it('rebuilds a projection from zero and says how many events it read', () => {
    const result = run('projections/rebuild.ts', ['stream_activity'], { DATABASE_URL: url });
    expect(result.stderr).to.equal('');
    expect(result.status).to.equal(0);
    expect(result.stdout).to.match(/^rebuilt stream_activity: 3 events in \d+\.\d s$/m);
  });

  it('shows each runner’s checkpoint and lag', () => {
    const result = run('projections/status.ts', [], { DATABASE_URL: url });
    expect(result.status).to.equal(0);
    expect(result.stdout).to.match(/head of the event feed: 3/);
    expect(result.stdout).to.match(/stream_activity +3 +0 /);
    expect(result.stdout).to.match(/work_relay +0 +3 +never ran/);
  });

  it('refuses an unknown projection name and lists the known ones', () => {
    const result = run('projections/rebuild.ts', ['nope'], { DATABASE_URL: url });
    expect(result.status).to.equal(2);
    expect(result.stderr.trim()).to.equal(`unknown projection nope; known: ${projections.map((p) => p.name).join(', ')}`);
  });

  it('fails with one clear line when the database cannot be reached', () => {
    const result = run('projections/rebuild.ts', [], { DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none' });
    expect(result.status).to.equal(1);
    expect(result.stderr.trim()).to.equal('projections:rebuild: cannot start: cannot reach PostgreSQL at 127.0.0.1:1/none (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:1');
  });
});
