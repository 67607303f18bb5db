import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { InstanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { logLine } from './logLine.ts';
import { privilegeRefusalMessage, privilegeRefusalWatcher } from './privilegeRefusal.ts';
import { DumpRefusedError, plainDumpFilter } from './plainDumpFilter.ts';
import { throwIfAborted } from '../abortError.ts';
import { type PgServer, pgToolEnv } from './pgServer.ts';
import { type ToolExit, type ToolOptions, ToolError, startTool, succeeded, toolError } from './toolProcess.ts';

/** A database and the instance role that owns it: the tools connect as that role, never as the admin. */
export interface OwnedDatabase {
  name: string;
  owner: InstanceCredentials;
}

/**
 * pg_dump, pg_restore and psql against one server; each fills a database that already exists,
 * empty. Each connects as the database's own role, so a dump's statements (and functions a
 * restore fires, such as a materialized view's) run without superuser rights: `COPY … TO
 * PROGRAM`, `ALTER SYSTEM` or `CREATE ROLE` are refused by the server, not by a filter.
 */
export interface PgTools {
  /** `pg_dump -Fc from | pg_restore -d to`, streamed: a snapshot of `from`, which may be in use meanwhile. */
  copy(from: OwnedDatabase, to: OwnedDatabase): Promise<void>;
  restoreCustom(dumpFile: string, to: OwnedDatabase): Promise<void>;
  restorePlain(dumpFile: string, to: OwnedDatabase): Promise<void>;
  /** `pg_dump -Fc` of the database into `toFile` (created or replaced). */
  dump(from: OwnedDatabase, toFile: string): Promise<void>;
}

export interface PgToolsOptions {
  /** Stops the tools (process group SIGTERM, then SIGKILL) and rejects with the abort's reason. */
  signal?: AbortSignal;
  /** PGAPPNAME of the tools' sessions; default `forja-executor`. */
  applicationName?: string;
  /** `pg_restore --jobs` for a custom-format archive of at least `parallelRestoreFromBytes` (FORJA_RESTORE_JOBS); 1, the default, restores in one session. */
  restoreJobs?: number;
  /** Below this size an archive restores in one session; default PARALLEL_RESTORE_FROM_BYTES. */
  parallelRestoreFromBytes?: number;
}

/**
 * Below this a custom archive restores in one session: each job opens its own connection, which a
 * small restore does not earn back. Measured on 2 cores: a 55 MB archive of a 296 MB ERP-like
 * database restored in 26.2 s with one job and 18.9 s with 4 (medians of 4, A-B-B-A); a 235 MB
 * archive of 1.2 GB in 30 s and 26 s.
 */
export const PARALLEL_RESTORE_FROM_BYTES = 16 * 2 ** 20;

/** FORJA_RESTORE_JOBS unset: one job per CPU, at most 4 (more sessions than that fight over the disk). */
export const defaultRestoreJobs = (): number => Math.min(availableParallelism(), 4);

/** Both tools are told to skip the source's owners and grants: its roles need not exist here. */
const RESTORE_ARGS = ['--no-owner', '--no-acl'];

export function pgTools(server: PgServer, log: Writable, { signal, applicationName, restoreJobs = 1, parallelRestoreFromBytes = PARALLEL_RESTORE_FROM_BYTES }: PgToolsOptions = {}): PgTools {
  const env = (database: OwnedDatabase) => pgToolEnv({ ...server, ...database.owner }, applicationName);
  const tool = (command: string, args: string[], options: Omit<ToolOptions, 'log' | 'signal'>) =>
    startTool(command, args, { ...options, log, ...(signal ? { signal } : {}) });
  /** The abort's reason when a tool was stopped by it: it comes before what the tools said as they died. */
  const abortOf = (...results: ToolExit[]) => results.find((result) => result.aborted)?.aborted;

  return {
    async copy(source, target) {
      const [from, to] = [source.name, target.name];
      const what = `copying database ${from} to ${to}`;
      throwIfAborted(signal, what);
      logLine(log, `${what}: pg_dump -Fc | pg_restore ${RESTORE_ARGS.join(' ')}`);
      // Uncompressed: the archive only crosses a local pipe, compressing it would cost CPU for nothing.
      const dump = tool('pg_dump', ['--format=custom', '--compress=0', '--dbname', from], { env: env(source), stdout: 'pipe' });
      const errors = restoreErrorCounter();
      const restore = tool('pg_restore', [...RESTORE_ARGS, '--dbname', to], { env: env(target), stdin: 'pipe', onStderrLine: errors.see });
      // A tool that dies breaks the pipe; its own exit says why, so the pipe's error is kept only as a last resort.
      const piped = await pipeline(dump.child.stdout!, restore.child.stdin!).then(
        () => null,
        (error: unknown) => error,
      );
      const [dumped, restored] = await Promise.all([dump.exit, restore.exit]);
      const aborted = abortOf(dumped, restored);
      if (aborted) throw aborted;
      const failures = [succeeded(dumped) ? null : toolError(what, dumped), restoreFailure(what, restored, errors, log)].filter((e): e is ToolError => e !== null);
      if (failures.length > 0) throw failures.length === 1 ? failures[0] : new Error(failures.map((e) => e.message).join('; '));
      if (piped !== null) throw piped;
      logLine(log, `copied database ${from} to ${to}`);
    },

    async restoreCustom(dumpFile, target) {
      const to = target.name;
      const what = `restoring ${dumpFile} into ${to}`;
      throwIfAborted(signal, what);
      // Parallel jobs each run in their own session, so the restore is never one transaction (nor
      // was it before: --single-transaction cannot go with --jobs); each session is the database's role.
      const size = await archiveBytes(dumpFile);
      const jobs = restoreJobs > 1 && size >= parallelRestoreFromBytes ? ['--jobs', String(restoreJobs)] : [];
      logLine(log, `${what}: pg_restore ${[...RESTORE_ARGS, ...jobs].join(' ')} (a ${size}-byte archive), as role ${target.owner.user}`);
      const errors = restoreErrorCounter();
      const { exit } = tool('pg_restore', [...RESTORE_ARGS, ...jobs, '--dbname', to, dumpFile], { env: env(target), onStderrLine: errors.see });
      const restored = await exit;
      const aborted = abortOf(restored);
      if (aborted) throw aborted;
      const failure = restoreFailure(what, restored, errors, log);
      if (failure) throw failure;
      logLine(log, `restored ${dumpFile} into ${to}`);
    },

    async restorePlain(dumpFile, target) {
      const to = target.name;
      const what = `restoring ${dumpFile} into ${to}`;
      throwIfAborted(signal, what);
      logLine(log, `${what}: psql -v ON_ERROR_STOP=1, in restricted mode, without owners and grants, as role ${target.owner.user}`);
      // -X: no ~/.psqlrc of the executor's user. Restricted mode starts before the dump's first
      // line, under a key the dump cannot know; the script comes on stdin, through the filter.
      const restrict = `\\restrict ${randomBytes(24).toString('hex')}`;
      const args = ['-X', '--quiet', '--set', 'ON_ERROR_STOP=1', '--dbname', to, '--command', restrict, '--file', '-'];
      const refusals = privilegeRefusalWatcher();
      const psql = tool('psql', args, { env: env(target), stdin: 'pipe', onStderrLine: refusals.see });
      const piped = await pipeline(createReadStream(dumpFile), plainDumpFilter(), psql.child.stdin!).then(
        () => null,
        (error: unknown) => error,
      );
      const result = await psql.exit;
      const aborted = abortOf(result);
      if (aborted) throw aborted;
      if (piped instanceof DumpRefusedError) {
        logLine(log, piped.message);
        throw piped;
      }
      if (!succeeded(result)) throw refusals.refusal ? new Error(privilegeRefusalMessage(what, refusals.refusal)) : toolError(what, result);
      if (piped !== null) throw piped;
      logLine(log, `restored ${dumpFile} into ${to}`);
    },

    async dump(source, toFile) {
      const what = `dumping database ${source.name} into ${toFile}`;
      throwIfAborted(signal, what);
      logLine(log, `${what}: pg_dump -Fc, as role ${source.owner.user}`);
      const { exit } = tool('pg_dump', ['--format=custom', '--file', toFile, '--dbname', source.name], { env: env(source) });
      const dumped = await exit;
      const aborted = abortOf(dumped);
      if (aborted) throw aborted;
      if (!succeeded(dumped)) throw toolError(what, dumped);
    },
  };
}

/**
 * Errors pg_restore reports but that leave a complete database: archives of pg_dump 10 and older
 * recreate the `public` schema a new database already has, and set the comment of the built-in
 * plpgsql extension, which only its owner (a superuser) may do.
 */
const HARMLESS_RESTORE_ERRORS = [/schema "public" already exists/, /must be owner of extension plpgsql/];

function restoreErrorCounter() {
  const counts = { harmless: 0, ignoredReported: -1 };
  const refusals = privilegeRefusalWatcher();
  return {
    counts,
    refusals,
    see(line: string) {
      refusals.see(line);
      if (/could not execute query: ERROR:/.test(line) && HARMLESS_RESTORE_ERRORS.some((pattern) => pattern.test(line))) counts.harmless++;
      const ignored = /errors ignored on restore: (\d+)/.exec(line);
      if (ignored) counts.ignoredReported = Number(ignored[1]);
    },
  };
}

/** pg_restore exits 1 when any statement failed; that is a failure unless every failed statement was harmless. */
function restoreFailure(what: string, result: ToolExit, errors: ReturnType<typeof restoreErrorCounter>, log: Writable): ToolError | null {
  if (succeeded(result)) return null;
  const { harmless, ignoredReported } = errors.counts;
  if (result.code === 1 && result.spawnError === undefined && ignoredReported > 0 && ignoredReported === harmless) {
    logLine(log, `${what}: the ${harmless} error(s) pg_restore reported are harmless (see above); the database is complete`);
    return null;
  }
  const refusal = errors.refusals.refusal;
  if (refusal) return new ToolError(privilegeRefusalMessage(what, refusal), result.tool, result.code, result.stderrTail);
  return toolError(what, result);
}

/** A custom archive's size, or the sum of a directory dump's files (its toc.dat and one file per table). */
async function archiveBytes(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(path)) total += (await stat(join(path, name))).size;
  return total;
}
