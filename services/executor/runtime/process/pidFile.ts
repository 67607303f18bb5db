import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instanceDir } from '#shared/platform/dataPaths.ts';
import { groupMembers, processOwner, processStartTime } from '#shared/platform/processGroup.ts';

/**
 * What the process runtime records about a running ERP server in the instance's folder, so a
 * restarted executor finds (and adopts) the server an earlier one started.
 */
export interface PidRecord {
  pid: number;
  port: number;
  /** The gevent process's port (`/websocket`), when the server runs workers. */
  geventPort?: number;
  startedAt: string;
  command: string;
  /** With `port`, what the process's command line must show for `pid` to still be this server. */
  database: string;
  /** Set by `stop` before it signals: a death from now on was asked for. */
  stopping?: boolean;
}

/** The pid file of an instance, in its folder under the data root (FORJA_DATA_DIR). */
export const pidFilePath = (dataRoot: string, slug: string): string => join(instanceDir(dataRoot, slug), 'erp-server.pid');

/** A record is one short JSON line. */
const MAX_RECORD_BYTES = 4096;

/**
 * The instance's folder belongs to the ERP's user, so customer code could put a link or a fifo
 * where a pid file goes: the executor (root) reads a record only from a regular file, never
 * through a link, and never more than a record's size.
 */
function readRecordText(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.alloc(MAX_RECORD_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, MAX_RECORD_BYTES, 0)).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The record, or null when there is none (or it is unreadable, which `start` treats as stale). */
export function readPidFile(path: string): PidRecord | null {
  const text = readRecordText(path);
  if (text === null) return null;
  try {
    const record = JSON.parse(text) as Partial<PidRecord>;
    if (!Number.isInteger(record.pid) || !Number.isInteger(record.port) || typeof record.database !== 'string') return null;
    return record as PidRecord;
  } catch {
    return null;
  }
}

/**
 * Replaces the record atomically: a reader sees the old one or the new one, never half. The
 * temporary file is created new (O_EXCL), so never written through a link left in its place; the
 * rename replaces whatever is at `path`, a link included, without following it.
 */
export function writePidFile(path: string, record: PidRecord | OneShotRecord): void {
  const temporary = `${path}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  writeFileSync(temporary, `${JSON.stringify(record)}\n`, { flag: 'wx' });
  renameSync(temporary, path);
}

export function removePidFile(path: string): void {
  rmSync(path, { force: true });
}

/**
 * True when `record.pid` is alive and is still this server: its command line carries the
 * database and port it was started with, which guards against the pid being reused by another
 * process. A zombie has an empty command line, so it counts as dead.
 */
export function isServerAlive(record: PidRecord): boolean {
  const argv = commandLineOf(record.pid);
  if (argv === null) return false;
  const has = (flag: string, value: string) => argv.some((arg, index) => arg === flag && argv[index + 1] === value);
  return has('-d', record.database) && has('--http-port', String(record.port));
}

/** How long a process may show an empty command line while it changes program before it counts as not the server. */
const EXEC_WINDOW_MS = 250;

/**
 * The process's command line, or null when it is gone or a zombie. A server starts as
 * `env python3 odoo-bin …` and execs twice (python3, then node for the stand-in): inside each
 * execve the kernel shows an empty command line for a moment. Read then, a `stop` right after a
 * `start` took the starting server for dead, removed its pid file without a signal, and left it
 * running on the port (a flake of processRuntime.int): an empty line of a process that is not a
 * zombie is read again until it is not empty, for a bounded moment.
 */
function commandLineOf(pid: number): string[] | null {
  const deadline = Date.now() + EXEC_WINDOW_MS;
  for (;;) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return null;
    }
    if (text !== '') return text.split('\0');
    if (isZombie(pid) || Date.now() >= deadline) return null;
    Atomics.wait(PAUSE, 0, 0, 5);
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** `/proc/<pid>/stat`'s state is `Z` (or the process is gone): it exited and waits to be reaped. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}

/** Every instance under the data root that has a pid file, live or not. */
export function recordedServers(dataRoot: string): Array<{ slug: string; record: PidRecord }> {
  let slugs: string[];
  try {
    slugs = readdirSync(join(dataRoot, 'instances'));
  } catch {
    return [];
  }
  return slugs.flatMap((slug) => {
    let record: PidRecord | null;
    try {
      record = readPidFile(pidFilePath(dataRoot, slug));
    } catch {
      return []; // not an instance folder (the name is no slug)
    }
    return record ? [{ slug, record }] : [];
  });
}

/**
 * What the process runtime records about a one-shot ERP run (`-i … --stop-after-init`) while it
 * runs, beside the server's pid file: an executor that dies mid-run leaves the run behind, and
 * the next run, `stop` or `destroy` of the instance ends it (`survivingGroup`).
 */
export interface OneShotRecord {
  pid: number;
  /** The process's start time (`processStartTime`): what tells it from a later process given the same pid. */
  startTime: string;
  startedAt: string;
  command: string;
  database: string;
}

/** The one-shot run's pid file, in the instance's folder. */
export const oneShotPidFilePath = (dataRoot: string, slug: string): string => join(instanceDir(dataRoot, slug), 'oneshot.pid');

/** The record of a run that just started, or null when it is already gone. */
export function oneShotRecordOf(pid: number, command: string, database: string): OneShotRecord | null {
  const startTime = processStartTime(pid);
  return startTime === null ? null : { pid, startTime, startedAt: new Date().toISOString(), command, database };
}

/** The record, or null when there is none or it is unreadable. */
export function readOneShotFile(path: string): OneShotRecord | null {
  try {
    const record = JSON.parse(readRecordText(path) ?? 'null') as Partial<OneShotRecord> | null;
    if (record === null) return null;
    return Number.isInteger(record.pid) && record.pid! > 1 && typeof record.startTime === 'string' ? (record as OneShotRecord) : null;
  } catch {
    return null;
  }
}

/**
 * The process group the recorded run leads, when something of it still runs as `uid` (the ERP's
 * user): the run itself (same pid, same start time), or, once it died, workers it left in its
 * group (a group keeps its number while it has members, so no later group can hold it). Null
 * when the pid is another process now, or nothing of the run is left. The file lies in a folder
 * the ERP writes, so customer code could forge it: whatever does not run as the ERP's user is
 * never signalled.
 */
export function survivingGroup(record: OneShotRecord, uid: number): number | null {
  const ours = (pid: number) => processOwner(pid) === uid;
  const startTime = processStartTime(record.pid);
  if (startTime !== null) return startTime === record.startTime && ours(record.pid) ? record.pid : null;
  const members = groupMembers(record.pid);
  return members.length > 0 && members.every(ours) ? record.pid : null;
}
