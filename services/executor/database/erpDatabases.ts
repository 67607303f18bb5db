import type { Writable } from 'node:stream';
import pg from 'pg';
import { stat } from 'node:fs/promises';
import { databaseAdmin } from './databaseAdmin.ts';
import { checkedDatabaseName } from './databaseName.ts';
import type { DumpFormat } from './dumpFormat.ts';
import type { InstanceCredentials } from './instanceRole.ts';
import { logLine } from './logLine.ts';
import { type ModuleState, readModuleStates } from './moduleStates.ts';
import { type Neutralized, neutralizeDatabase } from './neutralize.ts';
import { parsePgUrl, urlAs } from './pgServer.ts';
import { pgTools } from './pgTools.ts';

export interface ErpDatabasesOptions {
  /** The instances' PostgreSQL server, as a user allowed to create databases (FORJA_ERP_DATABASE_URL); its database is only used for administration. */
  adminUrl: string;
  /** The instance's `db` log: each action and the pg tools' messages, one timestamped line each. */
  log: Writable;
  /** The role that owns an instance database, and the only one that connects to it. */
  credentials: (database: string) => InstanceCredentials;
}

/**
 * The executor's operations on ERP databases. Every one is safe to re-run from scratch, because a
 * step interrupted by a crash runs again on redelivery; each that fills a database first recreates
 * it empty. Failures are logged and rejected with the tool's last messages.
 */
export interface ErpDatabases {
  exists(name: string): Promise<boolean>;
  /** Ends the database's connections and drops it; a missing one is fine. */
  drop(name: string): Promise<void>;
  /** Drops (as `drop`) and creates the database empty, owned by its own role (NOSUPERUSER, NOCREATEDB, NOCREATEROLE). */
  recreate(name: string): Promise<void>;
  /** Creates the database's role, or sets its attributes and password again (before the ERP connects as it). */
  ensureRole(name: string): Promise<void>;
  /**
   * Recreates `to` as a copy of `from`, streamed through `pg_dump -Fc | pg_restore --no-owner
   * --no-acl`: `from` may be in use meanwhile (a template copy would need it idle). Rejects before
   * touching `to` when `from` does not exist.
   */
  clone(from: string, to: string): Promise<void>;
  /** Recreates `to` from a dump: pg_restore for `custom`, psql (ON_ERROR_STOP, restricted mode) for `plain`. */
  restore(dumpFile: string, format: DumpFormat, to: string): Promise<void>;
  /** Turns off what would let a copy that is not production act on the outside world; says what it did. */
  neutralize(name: string): Promise<Neutralized[]>;
  /** The ERP's registry rows of `modules` in database `name` (none for a module it does not know). */
  moduleStates(name: string, modules: readonly string[]): Promise<ModuleState[]>;
}

export function erpDatabases({ adminUrl, log, credentials }: ErpDatabasesOptions): ErpDatabases {
  const server = parsePgUrl(adminUrl);
  const admin = databaseAdmin(adminUrl, log);
  const tools = pgTools(server, log);
  const checked = (name: string) => checkedDatabaseName(name, server.maintenanceDatabase);
  const owned = (name: string) => ({ name: checked(name), owner: credentials(checked(name)) });
  /** Inside an instance database Forja is its role: triggers and views there run with no more rights than the ERP's. */
  const urlOf = (name: string) => urlAs(adminUrl, owned(name).name, owned(name).owner);

  /** Writes a failure to the log before passing it on: the log is what the operator reads. */
  async function logged<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      logLine(log, `FAILED: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  }

  return {
    exists: (name) => admin.exists(checked(name)),
    drop: (name) => logged(() => admin.drop(checked(name))),
    recreate: (name) => logged(() => admin.recreate(checked(name), owned(name).owner)),
    ensureRole: (name) => logged(() => admin.ensureRole(owned(name).owner)),

    clone: (from, to) =>
      logged(async () => {
        if (checked(from) === checked(to)) throw new Error(`cannot copy database ${from} onto itself`);
        if (!(await admin.exists(from))) throw new Error(`cannot copy database ${from} to ${to}: database ${from} does not exist`);
        await admin.recreate(to, owned(to).owner);
        await tools.copy(owned(from), owned(to));
      }),

    restore: (dumpFile, format, to) =>
      logged(async () => {
        checked(to);
        const file = await stat(dumpFile).catch(() => null);
        if (!file?.isFile()) throw new Error(`cannot restore ${dumpFile} into ${to}: no such file`);
        await admin.recreate(to, owned(to).owner);
        switch (format) {
          case 'custom':
            return tools.restoreCustom(dumpFile, owned(to));
          case 'plain':
            return tools.restorePlain(dumpFile, owned(to));
          default: {
            const unknown: never = format;
            throw new Error(`unknown dump format ${String(unknown)}`);
          }
        }
      }),

    moduleStates: (name, modules) => logged(() => readModuleStates(urlOf(name), modules)),

    neutralize: (name) =>
      logged(async () => {
        const client = new pg.Client({ connectionString: urlOf(name), application_name: 'forja-executor' });
        await client.connect();
        try {
          logLine(log, `neutralizing database ${name}`);
          const skipped: string[] = [];
          const done = await neutralizeDatabase(client, (what, missing) => skipped.push(`${what} (${missing.length > 0 ? `no ${missing.join(', ')}` : 'unknown table layout'})`));
          if (skipped.length > 0) logLine(log, `neutralize ${name}: not applicable here: ${skipped.join('; ')}`);
          for (const { what, rows } of done) logLine(log, `neutralize ${name}: ${what} (${rows} row(s) changed)`);
          logLine(log, `neutralized database ${name}: ${done.length} step(s) applied`);
          return done;
        } finally {
          await client.end().catch(() => undefined);
        }
      }),
  };
}
