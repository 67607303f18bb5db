import type { Writable } from 'node:stream';
import pg from 'pg';
import { INSTANCE_ROLE_ATTRIBUTES, type InstanceCredentials } from './instanceRole.ts';
import { logLine } from './logLine.ts';
import { openSession, type SessionOptions } from './openSession.ts';

/**
 * Statements on the server as a whole (create, drop, look up databases and roles), run from the
 * admin URL's maintenance database: the only place Forja connects with the admin's privileges.
 * Nothing here ever connects to an instance database. Each is safe to re-run: an interrupted
 * step starts over.
 */
export interface DatabaseAdmin {
  exists(name: string): Promise<boolean>;
  /** Drops the database and its role. */
  drop(name: string): Promise<void>;
  /** Drops the database, then creates it empty, owned by the instance's role (created or re-asserted first). */
  recreate(name: string, owner: InstanceCredentials): Promise<void>;
  /** Creates the instance's role, or sets its attributes and password again. */
  ensureRole(owner: InstanceCredentials): Promise<void>;
}

export function databaseAdmin(adminUrl: string, log: Writable, session: SessionOptions = {}): DatabaseAdmin {
  async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = await openSession(adminUrl, session);
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

  async function ensureRoleIn(client: pg.Client, { user, password }: InstanceCredentials): Promise<void> {
    const role = pg.escapeIdentifier(user);
    const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [user]);
    const verb = rowCount ? 'alter' : 'create';
    await client.query(`${verb} role ${role} with ${INSTANCE_ROLE_ATTRIBUTES} password ${client.escapeLiteral(password)}`);
    // A non-superuser admin (CREATEDB, CREATEROLE) may only give a database to a role it is a member of.
    const { rows } = await client.query<{ rolsuper: boolean }>('select rolsuper from pg_roles where rolname = current_user');
    if (!rows[0]?.rolsuper) await client.query(`grant ${role} to current_user`);
    if (verb === 'create') logLine(log, `created role ${user} (no superuser, no createdb, no createrole)`);
  }

  return {
    exists: (name) => withClient((client) => exists(client, name)),
    drop: (name) =>
      withClient(async (client) => {
        await dropIn(client, name);
        // The role owned only that database: nothing of it is left to reassign.
        const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [name]);
        if (rowCount) {
          await client.query(`drop role ${pg.escapeIdentifier(name)}`);
          logLine(log, `dropped role ${name}`);
        }
      }),
    ensureRole: (owner) => withClient((client) => ensureRoleIn(client, owner)),
    recreate: (name, owner) =>
      withClient(async (client) => {
        logLine(log, `recreating database ${name}`);
        await dropIn(client, name);
        await ensureRoleIn(client, owner);
        // What the ERP itself does when it creates a database: UTF-8 from template0 (a template1
        // changed by hand is not copied along) and C collation. Its own role owns it, and only
        // that role may connect (PUBLIC's default CONNECT and TEMPORARY are revoked).
        const database = pg.escapeIdentifier(name);
        await client.query(`create database ${database} owner ${pg.escapeIdentifier(owner.user)} encoding 'UTF8' lc_collate 'C' template template0`);
        await client.query(`revoke all on database ${database} from public`);
        logLine(log, `created database ${name}, owned by role ${owner.user}`);
      }),
  };
}

async function serverVersion(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ server_version_num: string }>('show server_version_num');
  return Number(rows[0]?.server_version_num ?? 0);
}
