import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instanceDir } from '#shared/platform/dataPaths.ts';

/**
 * What the process runtime records about a running ERP server in the instance's folder, so a
 * restarted executor finds (and adopts) the server an earlier one started.
 */
export interface PidRecord {
  pid: number;
  port: number;
  startedAt: string;
  command: string;
  /** With `port`, what the process's command line must show for `pid` to still be this server. */
  database: string;
  /** Set by `stop` before it signals: a death from now on was asked for. */
  stopping?: boolean;
}

/** The pid file of an instance, in its folder under the data root (FORJA_DATA_DIR). */
export const pidFilePath = (dataRoot: string, slug: string): string => join(instanceDir(dataRoot, slug), 'erp-server.pid');

/** The record, or null when there is none (or it is unreadable, which `start` treats as stale). */
export function readPidFile(path: string): PidRecord | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const record = JSON.parse(text) as Partial<PidRecord>;
    if (!Number.isInteger(record.pid) || !Number.isInteger(record.port) || typeof record.database !== 'string') return null;
    return record as PidRecord;
  } catch {
    return null;
  }
}

/** Replaces the record atomically: a reader sees the old one or the new one, never half. */
export function writePidFile(path: string, record: PidRecord): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record)}\n`);
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
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return false;
  }
  const has = (flag: string, value: string) => argv.some((arg, index) => arg === flag && argv[index + 1] === value);
  return has('-d', record.database) && has('--http-port', String(record.port));
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
