import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from '#shared/local/postgresCluster.ts';
import { runDir } from './runDir.ts';
import { onTeardown } from './teardown.ts';

let cluster: Promise<PostgresCluster> | undefined;

/** One private PostgreSQL cluster for the whole test run, started on first use. */
export function testCluster(): Promise<PostgresCluster> {
  cluster ??= (async () => {
    const started = await startPostgresCluster(runDir('test-postgres'), 'forja_test');
    onTeardown(() => started.stop());
    return started;
  })();
  return cluster;
}

/** A new, empty database on the test cluster: every suite gets its own, so none sees another's rows. */
export async function createTestDatabase(prefix = 'test'): Promise<string> {
  const started = await testCluster();
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: started.urlFor('postgres') });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  return started.urlFor(name);
}
