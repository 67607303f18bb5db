import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { cancellingOnAbort } from './cancelBackends.ts';
import { databaseAdmin } from './databaseAdmin.ts';
import { checkedDatabaseName } from './databaseName.ts';
import type { DumpFormat } from './dumpFormat.ts';
import type { InstanceCredentials } from './instanceRole.ts';
import { logLine } from './logLine.ts';
import { type ModuleState, readModuleStates } from './moduleStates.ts';
import { type Neutralized, neutralizeDatabase } from './neutralize.ts';
import { openSession } from './openSession.ts';
import { DEFAULT_APPLICATION_NAME, parsePgUrl, urlAs } from './pgServer.ts';
import { pgTools } from './pgTools.ts';

export interface ErpDatabasesOptions {
  /** The instances' PostgreSQL server, as a user allowed to create databases (FORJA_ERP_DATABASE_URL); its database is only used for administration. */
  adminUrl: string;
  /** The instance's `db` log: each action and the pg tools' messages, one timestamped line each. */
  log: Writable;
  /** The role that owns an instance database, and the only one that connects to it. */
  credentials: (database: string) => InstanceCredentials;
  /**
   * The job's signal. When it fires, the pg tools' process groups are stopped, every session
   * tagged `applicationName` is cancelled (then terminated after `cancelGraceMs`) from a separate
   * admin session, and the operation rejects with the abort's reason (abortError).
   */
  signal?: AbortSignal;
  /**
   * application_name of every session opened, the pg tools' included (PGAPPNAME): the runner
   * passes `forja-job-<jobId>`. Printable ASCII, at most 63 characters (the server would alter
   * anything else, and the cancel would miss it). Default `forja-executor`; with a `signal` but no
   * name, `forja-executor-<random>`, so that an abort never cancels another job's sessions.
   */
  applicationName?: string;
  /** How long cancelled statements get to end before their sessions are terminated; default 2 s. */
  cancelGraceMs?: number;
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

/** What the server keeps of an application_name unchanged. */
const APPLICATION_NAME = /^[\x20-\x7e]{1,63}$/;

export function erpDatabases({ adminUrl, log, credentials, signal, applicationName, cancelGraceMs }: ErpDatabasesOptions): ErpDatabases {
  const server = parsePgUrl(adminUrl);
  const appName = applicationName ?? (signal ? `${DEFAULT_APPLICATION_NAME}-${randomBytes(6).toString('hex')}` : DEFAULT_APPLICATION_NAME);
  if (!APPLICATION_NAME.test(appName)) throw new Error(`not a usable application_name (printable ASCII, at most 63 characters): ${JSON.stringify(appName)}`);
  const session = { applicationName: appName, ...(signal ? { signal } : {}) };
  const admin = databaseAdmin(adminUrl, log, session);
  const tools = pgTools(server, log, session);
  const checked = (name: string) => checkedDatabaseName(name, server.maintenanceDatabase);
  const owned = (name: string) => ({ name: checked(name), owner: credentials(checked(name)) });
  /** Inside an instance database Forja is its role: triggers and views there run with no more rights than the ERP's. */
  const urlOf = (name: string) => urlAs(adminUrl, owned(name).name, owned(name).owner);

  /** An abort cancels the job's sessions on the server: a statement of ours, a pg tool's (see cancelBackends). */
  const abortable = <T>(what: string, work: () => Promise<T>): Promise<T> =>
    signal
      ? cancellingOnAbort(what, work, { signal, adminUrl, applicationName: appName, report: (line) => logLine(log, line), ...(cancelGraceMs === undefined ? {} : { graceMs: cancelGraceMs }) })
      : work();

  /** Writes a failure to the log before passing it on: the log is what the operator reads. */
  async function logged<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await abortable(what, work);
    } catch (error) {
      logLine(log, `FAILED: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  }

  return {
    exists: (name) => abortable(`looking up database ${name}`, () => admin.exists(checked(name))),
    drop: (name) => logged(`dropping database ${name}`, () => admin.drop(checked(name))),
    recreate: (name) => logged(`recreating database ${name}`, () => admin.recreate(checked(name), owned(name).owner)),
    ensureRole: (name) => logged(`setting up the role of ${name}`, () => admin.ensureRole(owned(name).owner)),

    clone: (from, to) =>
      logged(`copying database ${from} to ${to}`, async () => {
        if (checked(from) === checked(to)) throw new Error(`cannot copy database ${from} onto itself`);
        if (!(await admin.exists(from))) throw new Error(`cannot copy database ${from} to ${to}: database ${from} does not exist`);
        await admin.recreate(to, owned(to).owner);
        await tools.copy(owned(from), owned(to));
      }),

    restore: (dumpFile, format, to) =>
      logged(`restoring ${dumpFile} into ${to}`, async () => {
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

    moduleStates: (name, modules) => logged(`reading the modules of ${name}`, () => readModuleStates(urlOf(name), modules, session)),

    neutralize: (name) =>
      logged(`neutralizing database ${name}`, async () => {
        const client = await openSession(urlOf(name), session);
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
