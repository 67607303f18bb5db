import type { Writable } from 'node:stream';
import pg from 'pg';
import { INSTANCE_ROLE_ALTERABLE_ATTRIBUTES, INSTANCE_ROLE_ATTRIBUTES, type InstanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
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
  /**
   * Creates or heals the role; with `database`, an existing database of it also loses PUBLIC's
   * CONNECT (databases made before Forja revoked it): no other instance's role may connect to it.
   */
  ensureRole(owner: InstanceCredentials, database?: string): Promise<void>;
  /**
   * Drops `name`, then creates it `TEMPLATE template` owned by `owner` (objects inside keep their
   * owners): a file-level copy, which needs `template` idle, so its other connections are ended first.
   */
  copyFromTemplate(template: string, name: string, owner: InstanceCredentials): Promise<void>;
  /** Drops `to` (ending its connections) and renames `from` to `to`. */
  replace(from: string, to: string): Promise<void>;
  /** Ends every other backend connected to `name` and waits (at most 5 s) until they are gone; says how many it ended. */
  terminateConnections(name: string): Promise<number>;
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
    await terminateIn(client, name);
    const force = (await serverVersion(client)) >= 130000 ? ' with (force)' : '';
    await client.query(`drop database if exists ${pg.escapeIdentifier(name)}${force}`);
    logLine(log, `dropped database ${name}`);
  }

  async function terminateIn(client: pg.Client, name: string): Promise<number> {
    const { rows } = await client.query<{ ended: number }>(
      'select count(pg_terminate_backend(pid))::int as ended from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    const ended = rows[0]?.ended ?? 0;
    if (ended > 0) logLine(log, `ended ${ended} connection(s) to ${name}`);
    return ended;
  }

  /** pg_terminate_backend only sends the signal: a backend in the middle of a statement takes a moment to go. */
  async function goneIn(client: pg.Client, name: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rowCount } = await client.query('select 1 from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      if (!rowCount) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolveLater) => setTimeout(resolveLater, 50));
    }
  }

  /**
   * Drops an instance role (no superuser, createdb or createrole: never the admin or a role of the
   * server) unless it still owns something somewhere; a missing one is fine.
   */
  async function dropInstanceRole(client: pg.Client, role: string): Promise<void> {
    const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1 and not (rolsuper or rolcreatedb or rolcreaterole) and rolname <> current_user', [role]);
    if (!rowCount) return;
    try {
      await client.query(`drop role ${pg.escapeIdentifier(role)}`);
      logLine(log, `dropped role ${role}`);
    } catch (error) {
      if ((error as { code?: string }).code !== DEPENDENT_OBJECTS_STILL_EXIST) throw error;
      logLine(log, `kept role ${role}: it still owns objects elsewhere (${(error as { detail?: string }).detail ?? 'a snapshot of its database'})`);
    }
  }

  async function ensureRoleIn(client: pg.Client, { user, password }: InstanceCredentials): Promise<void> {
    const role = pg.escapeIdentifier(user);
    const [admin] = (await client.query<{ rolsuper: boolean }>('select rolsuper from pg_roles where rolname = current_user')).rows;
    const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [user]);
    const verb = rowCount ? 'alter' : 'create';
    // Only a superuser may name the superuser, replication and bypassrls attributes in an ALTER,
    // even to turn them off; a non-superuser admin re-asserts the others and checks those after.
    const attributes = verb === 'create' || admin?.rolsuper ? INSTANCE_ROLE_ATTRIBUTES : INSTANCE_ROLE_ALTERABLE_ATTRIBUTES;
    await client.query(`${verb} role ${role} with ${attributes} password ${client.escapeLiteral(password)}`);
    if (attributes !== INSTANCE_ROLE_ATTRIBUTES) {
      const [now] = (await client.query<{ privileged: boolean }>('select rolsuper or rolreplication or rolbypassrls as privileged from pg_roles where rolname = $1', [user])).rows;
      if (now?.privileged) throw new Error(`role ${user} has superuser, replication or bypassrls rights, which only a superuser can take away: refused`);
    }
    // A non-superuser admin (CREATEDB, CREATEROLE) may only give a database to a role it is a member of.
    if (!admin?.rolsuper) await client.query(`grant ${role} to current_user`);
    if (verb === 'create') logLine(log, `created role ${user} (no superuser, no createdb, no createrole)`);
  }

  return {
    exists: (name) => withClient((client) => exists(client, name)),
    drop: (name) =>
      withClient(async (client) => {
        const { rows } = await client.query<{ owner: string }>('select pg_get_userbyid(datdba) as owner from pg_database where datname = $1', [name]);
        await dropIn(client, name);
        // The role owned only that database, unless a snapshot of it is still there (then the role
        // stays). Dropping a snapshot after its database takes the role the snapshot kept.
        await dropInstanceRole(client, name);
        const owner = rows[0]?.owner;
        if (owner !== undefined && owner !== name && !(await exists(client, owner))) await dropInstanceRole(client, owner);
      }),
    ensureRole: (owner, database) =>
      withClient(async (client) => {
        await ensureRoleIn(client, owner);
        if (database !== undefined && (await exists(client, database))) await client.query(`revoke all on database ${pg.escapeIdentifier(database)} from public`);
      }),
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
    copyFromTemplate: (template, name, owner) =>
      withClient(async (client) => {
        if (!(await exists(client, template))) throw new Error(`cannot copy database ${template} to ${name}: database ${template} does not exist`);
        await dropIn(client, name);
        await ensureRoleIn(client, owner);
        const create = `create database ${pg.escapeIdentifier(name)} template ${pg.escapeIdentifier(template)} owner ${pg.escapeIdentifier(owner.user)}`;
        // The server waits 5 s for the template's sessions to go; one that connected meanwhile is ended once more.
        for (let attempt = 1; ; attempt++) {
          await terminateIn(client, template);
          try {
            await client.query(create);
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== OBJECT_IN_USE || attempt >= 3) throw error;
          }
        }
        // A new database gets PUBLIC's default CONNECT and TEMPORARY again: only its role may connect.
        await client.query(`revoke all on database ${pg.escapeIdentifier(name)} from public`);
        logLine(log, `created database ${name} as a copy of ${template}, owned by role ${owner.user}`);
      }),
    replace: (from, to) =>
      withClient(async (client) => {
        await dropIn(client, to);
        await client.query(`alter database ${pg.escapeIdentifier(from)} rename to ${pg.escapeIdentifier(to)}`);
        logLine(log, `renamed database ${from} to ${to}`);
      }),
    terminateConnections: (name) =>
      withClient(async (client) => {
        const ended = await terminateIn(client, name);
        if (!(await goneIn(client, name, 5_000))) logLine(log, `connections to ${name} still there 5 s after they were ended`);
        return ended;
      }),
  };
}

/** PostgreSQL's "dependent_objects_still_exist": DROP ROLE of a role owning objects somewhere. */
const DEPENDENT_OBJECTS_STILL_EXIST = '2BP01';
/** PostgreSQL's "object_in_use": the template database is being accessed by other users. */
const OBJECT_IN_USE = '55006';

async function serverVersion(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ server_version_num: string }>('show server_version_num');
  return Number(rows[0]?.server_version_num ?? 0);
}
