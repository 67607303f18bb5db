import { randomBytes } from 'node:crypto';
import { rename, rm, stat } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { cancellingOnAbort } from './cancelBackends.ts';
import { databaseAdmin } from './databaseAdmin.ts';
import { checkedDatabaseName } from '#shared/instanceDatabase/databaseName.ts';
import { asideDatabaseName } from '#shared/instanceDatabase/reservedNames.ts';
import { databaseSize, inSession, type QueryOptions, queryRows } from './databaseSessions.ts';
import type { DumpFormat } from './dumpFormat.ts';
import type { InstanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { logLine } from './logLine.ts';
import { type ModuleState, readModuleStates } from './moduleStates.ts';
import { type Neutralized, neutralizeDatabase } from './neutralize.ts';
import type { MailCatcherAddress } from './neutralizationSteps.ts';
import { openSession } from './openSession.ts';
import { DEFAULT_APPLICATION_NAME, parsePgUrl, urlAs } from './pgServer.ts';
import { pgTools } from './pgTools.ts';
import { runOnceIn } from './runOnce.ts';

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
  /** `pg_restore --jobs` for large custom-format dumps (FORJA_RESTORE_JOBS); default 1: one session. */
  restoreJobs?: number;
  /** The size from which a custom-format dump restores with `restoreJobs` (see pgTools). */
  parallelRestoreFromBytes?: number;
  /** Forja's mail catcher, which neutralized copies send their mail to; unset = the dead host `invalid`. */
  mailCatcher?: MailCatcherAddress;
  /** The login of an instance's mailbox at the catcher (mailboxLogin.ts), given to the copies neutralized for it. */
  mailboxLogin?: (instance: string) => { user: string; pass: string };
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
  /** Creates the database's role, or sets its attributes and password again (before the ERP connects as it), and takes PUBLIC's CONNECT off the database when it exists (one made before Forja revoked it). */
  ensureRole(name: string): Promise<void>;
  /**
   * Recreates `to` as a copy of `from`, streamed through `pg_dump -Fc | pg_restore --no-owner
   * --no-acl`: `from` may be in use meanwhile (a template copy would need it idle). Rejects before
   * touching `to` when `from` does not exist.
   */
  clone(from: string, to: string): Promise<void>;
  /** Recreates `to` from a dump: pg_restore for `custom` and `directory` (with parallel jobs when it is large and `restoreJobs` > 1), psql (ON_ERROR_STOP, restricted mode) for `plain`. */
  restore(dumpFile: string, format: DumpFormat, to: string): Promise<void>;
  /**
   * Turns off what would let a copy that is not production act on the outside world; says what it
   * did. Its mail goes to the catcher, kept for `mailbox` (the instance it is a copy for) when given.
   * `forjaOwnOnly`: only Forja's own part (the mail catcher), after the ERP's `neutralize` ran.
   */
  neutralize(name: string, mailbox?: string, forjaOwnOnly?: boolean): Promise<Neutralized[]>;
  /** The ERP's registry rows of `modules` in database `name` (none for a module it does not know). */
  moduleStates(name: string, modules: readonly string[]): Promise<ModuleState[]>;
  /**
   * A checkpoint: `to` becomes a copy of `from` made with `CREATE DATABASE … TEMPLATE` (a
   * file-level copy, much faster than a dump), owned by `from`'s role, whose objects keep their
   * owner. Every other connection to `from` is ended first (a template must be idle). The copy is
   * built under another name and renamed over an older `to`, so an interrupted snapshot leaves
   * the older one in place. Rejects before touching anything when `from` does not exist.
   */
  snapshot(from: string, to: string): Promise<void>;
  /**
   * Drops `to` (ending its connections) and recreates it `TEMPLATE snapshot`, owned by `to`'s
   * role. Rejects before touching `to` when there is no `snapshot`.
   */
  restoreFromSnapshot(snapshot: string, to: string): Promise<void>;
  /**
   * Ends every backend connected to `name`, whoever runs it (an ERP, a pg tool, a `CREATE INDEX`
   * left by a killed pg_restore), and waits until they are gone (at most 5 s); says how many it
   * ended. Not bound to the job's signal: it is what a pause or stop runs after the abort.
   */
  terminateConnections(name: string): Promise<number>;
  /** The rows of `sql` run in `name` as its role (see queryRows); `readOnly` runs it in a read-only transaction. */
  query<Row extends object = Record<string, unknown>>(name: string, sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<Row[]>;
  /**
   * Runs `sql` in `name`, as its role, in one transaction with the marker row `key` of table
   * `forja_migration_marks` (created if missing); when the marker is there already it runs
   * nothing and says so (`ran: false`). See runOnceIn.
   */
  runOnce(name: string, key: string, sql: string): Promise<{ ran: boolean }>;
  /** `pg_dump -Fc` of `name` as its role into `toFile`, written beside it and renamed into place; says how many bytes. */
  dump(name: string, toFile: string): Promise<{ bytes: number }>;
  /** `pg_database_size` of `name`, in bytes. */
  size(name: string): Promise<number>;
}

/** What the server keeps of an application_name unchanged. */
const APPLICATION_NAME = /^[\x20-\x7e]{1,63}$/;

export function erpDatabases({ adminUrl, log, credentials, signal, applicationName, cancelGraceMs, restoreJobs, parallelRestoreFromBytes, mailCatcher, mailboxLogin }: ErpDatabasesOptions): ErpDatabases {
  const server = parsePgUrl(adminUrl);
  const appName = applicationName ?? (signal ? `${DEFAULT_APPLICATION_NAME}-${randomBytes(6).toString('hex')}` : DEFAULT_APPLICATION_NAME);
  if (!APPLICATION_NAME.test(appName)) throw new Error(`not a usable application_name (printable ASCII, at most 63 characters): ${JSON.stringify(appName)}`);
  const session = { applicationName: appName, ...(signal ? { signal } : {}) };
  const admin = databaseAdmin(adminUrl, log, session);
  /** Sessions that must work after the abort (ending connections for a pause), tagged apart from the job's so its cancel never takes them. */
  const terminator = databaseAdmin(adminUrl, log, { applicationName: `${DEFAULT_APPLICATION_NAME}-terminate` });
  const tools = pgTools(server, log, { ...session, restoreJobs, parallelRestoreFromBytes });
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
  async function reported<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      logLine(log, `FAILED: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  }
  const logged = <T>(what: string, work: () => Promise<T>): Promise<T> => reported(() => abortable(what, work));

  return {
    exists: (name) => abortable(`looking up database ${name}`, () => admin.exists(checked(name))),
    drop: (name) => logged(`dropping database ${name}`, () => admin.drop(checked(name))),
    recreate: (name) => logged(`recreating database ${name}`, () => admin.recreate(checked(name), owned(name).owner)),
    ensureRole: (name) => logged(`setting up the role of ${name}`, () => admin.ensureRole(owned(name).owner, name)),

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
        if (!(format === 'directory' ? file?.isDirectory() : file?.isFile())) throw new Error(`cannot restore ${dumpFile} into ${to}: no such ${format === 'directory' ? 'folder' : 'file'}`);
        await admin.recreate(to, owned(to).owner);
        switch (format) {
          case 'custom':
          case 'directory':
            // pg_restore tells the two archive formats apart itself.
            return tools.restoreCustom(dumpFile, owned(to));
          case 'plain':
            return tools.restorePlain(dumpFile, owned(to));
          default: {
            const unknown: never = format;
            throw new Error(`unknown dump format ${String(unknown)}`);
          }
        }
      }),

    snapshot: (from, to) =>
      logged(`taking snapshot ${to} of database ${from}`, async () => {
        if (checked(from) === checked(to)) throw new Error(`cannot snapshot database ${from} onto itself`);
        if (!(await admin.exists(from))) throw new Error(`cannot snapshot database ${from}: it does not exist`);
        // Not `<to>_new`: that could be an instance's database (reservedNames.ts).
        const aside = checked(asideDatabaseName(to));
        logLine(log, `taking snapshot ${to} of database ${from} (built as ${aside}, then renamed)`);
        await admin.copyFromTemplate(from, aside, owned(from).owner);
        await admin.replace(aside, to);
        logLine(log, `snapshot ${to} of database ${from} ready`);
      }),

    restoreFromSnapshot: (snapshot, to) =>
      logged(`restoring database ${to} from snapshot ${snapshot}`, async () => {
        if (checked(snapshot) === checked(to)) throw new Error(`cannot restore database ${to} from itself`);
        if (!(await admin.exists(snapshot))) throw new Error(`cannot restore database ${to}: there is no snapshot ${snapshot}`);
        logLine(log, `restoring database ${to} from snapshot ${snapshot}`);
        await admin.copyFromTemplate(snapshot, to, owned(to).owner);
      }),

    terminateConnections: (name) => reported(async () => terminator.terminateConnections(checked(name))),

    query: <Row extends object>(name: string, sql: string, params?: readonly unknown[], options?: QueryOptions) =>
      logged(`querying database ${name}`, () => inSession(urlOf(name), session, (client) => queryRows<Row>(client, sql, params, options))),

    runOnce: (name, key, sql) =>
      logged(`running ${key} once in ${name}`, async () => {
        logLine(log, `running ${key} once in ${name}`);
        const result = await inSession(urlOf(name), session, (client) => runOnceIn(client, key, sql));
        logLine(log, result.ran ? `ran ${key} in ${name}` : `${key} already ran in ${name} (its marker is there): nothing done`);
        return result;
      }),

    dump: (name, toFile) =>
      logged(`dumping database ${name} into ${toFile}`, async () => {
        if (!(await admin.exists(checked(name)))) throw new Error(`cannot dump database ${name}: it does not exist`);
        const part = `${toFile}.partial`;
        await rm(part, { force: true });
        try {
          await tools.dump(owned(name), part);
          await rename(part, toFile);
        } catch (error) {
          await rm(part, { force: true });
          throw error;
        }
        const { size } = await stat(toFile);
        logLine(log, `dumped database ${name} into ${toFile} (${size} bytes)`);
        return { bytes: size };
      }),

    size: (name) => logged(`measuring database ${name}`, () => inSession(urlOf(name), session, databaseSize)),

    moduleStates: (name, modules) => logged(`reading the modules of ${name}`, () => readModuleStates(urlOf(name), modules, session)),

    neutralize: (name, mailbox, forjaOwnOnly = false) =>
      logged(`neutralizing database ${name}`, async () => {
        const client = await openSession(urlOf(name), session);
        try {
          logLine(log, `neutralizing database ${name}`);
          const skipped: string[] = [];
          const done = await neutralizeDatabase(client, (what, missing) => skipped.push(`${what} (${missing.length > 0 ? `no ${missing.join(', ')}` : 'unknown table layout'})`), mailCatcher && mailbox && mailboxLogin ? { ...mailCatcher, login: mailboxLogin(mailbox) } : mailCatcher, forjaOwnOnly);
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
