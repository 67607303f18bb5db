import type { Writable } from 'node:stream';
import pg from 'pg';
import { logLine } from './logLine.ts';

/**
 * Statements on the server as a whole (create, drop, look up databases), run from the admin
 * URL's maintenance database. Each is safe to re-run: an interrupted step starts over.
 */
export interface DatabaseAdmin {
  exists(name: string): Promise<boolean>;
  drop(name: string): Promise<void>;
  recreate(name: string): Promise<void>;
}

export function databaseAdmin(adminUrl: string, log: Writable): DatabaseAdmin {
  async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: adminUrl, application_name: 'forja-executor' });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async function exists(client: pg.Client, name: string): Promise<boolean> {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Ends other sessions first (an ERP still running, a psql left open), then drops. From
   * PostgreSQL 13, `with (force)` also refuses sessions that connect between the two statements.
   */
  async function dropIn(client: pg.Client, name: string): Promise<void> {
    if (!(await exists(client, name))) {
      logLine(log, `database ${name} does not exist: nothing to drop`);
      return;
    }
    const { rows } = await client.query<{ ended: number }>(
      'select count(pg_terminate_backend(pid))::int as ended from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    if ((rows[0]?.ended ?? 0) > 0) logLine(log, `ended ${rows[0]?.ended} connection(s) to ${name}`);
    const force = (await serverVersion(client)) >= 130000 ? ' with (force)' : '';
    await client.query(`drop database if exists ${pg.escapeIdentifier(name)}${force}`);
    logLine(log, `dropped database ${name}`);
  }

  return {
    exists: (name) => withClient((client) => exists(client, name)),
    drop: (name) => withClient((client) => dropIn(client, name)),
    recreate: (name) =>
      withClient(async (client) => {
        logLine(log, `recreating database ${name}`);
        await dropIn(client, name);
        // What the ERP itself does when it creates a database: UTF-8 from template0 (a template1
        // changed by hand is not copied along) and C collation. The creating user owns it.
        await client.query(`create database ${pg.escapeIdentifier(name)} encoding 'UTF8' lc_collate 'C' template template0`);
        logLine(log, `created database ${name}`);
      }),
  };
}

async function serverVersion(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ server_version_num: string }>('show server_version_num');
  return Number(rows[0]?.server_version_num ?? 0);
}
