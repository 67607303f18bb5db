import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { runTool } from './erpDatabase.ts';
import { settle } from './settle.ts';

/**
 * The anchor: what an operator types by hand. `createdb` as the restore step creates its working
 * database (UTF-8 from template0, C collation), then `pg_restore` with the step's own flags
 * (`--no-owner --no-acl`, one job unless `jobs` says: `-j 2` is the best a DBA does on 2 cores). It runs as the cluster's superuser; the step
 * runs it as the working database's own role. Timed together, like the step's recreate + restore.
 */
export async function timeRawRestore(admin: pg.Client, adminUrl: string, dumpFile: string, database: string, jobs = 1): Promise<number> {
  const url = new URL(adminUrl);
  const env = { ...process.env, PGHOST: url.hostname, PGPORT: url.port, PGUSER: decodeURIComponent(url.username), PGPASSWORD: decodeURIComponent(url.password), PGDATABASE: 'postgres' };
  await admin.query(`drop database if exists ${pg.escapeIdentifier(database)}`);
  await settle(admin);
  const started = performance.now();
  await runTool('createdb', ['--encoding=UTF8', '--lc-collate=C', '--template=template0', database], env);
  await runTool('pg_restore', ['--no-owner', '--no-acl', ...(jobs > 1 ? ['--jobs', String(jobs)] : []), '--dbname', database, dumpFile], env);
  const elapsed = performance.now() - started;
  await admin.query(`drop database ${pg.escapeIdentifier(database)}`);
  return elapsed;
}
