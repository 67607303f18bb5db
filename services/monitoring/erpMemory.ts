import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { instanceDir } from '#shared/platform/dataPaths.ts';
import { groupMembers } from '#shared/platform/processGroup.ts';

/** A pid file is one short JSON line (the process runtime's `erp-server.pid`). */
const MAX_RECORD_BYTES = 4096;

export interface ErpServerRecord {
  pid: number;
  port: number;
  database: string;
}

/**
 * The process runtime's record of an instance's ERP server. The folder belongs to the ERP's
 * user, so customer code could leave a link or a fifo there: read only a regular file, never
 * through a link, never more than a record's size (as the executor does).
 */
export function readErpServerRecord(dataDir: string, slug: string): ErpServerRecord | null {
  let fd: number;
  try {
    fd = openSync(join(instanceDir(dataDir, slug), 'erp-server.pid'), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.alloc(MAX_RECORD_BYTES);
    const record = JSON.parse(buffer.subarray(0, readSync(fd, buffer, 0, MAX_RECORD_BYTES, 0)).toString('utf8')) as Partial<ErpServerRecord>;
    if (!Number.isInteger(record.pid) || !Number.isInteger(record.port) || typeof record.database !== 'string') return null;
    return record as ErpServerRecord;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Resident memory of one process in bytes (VmRSS), 0 when it is gone. */
function residentBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Whether `pid` still is the server of the record: its command line carries the port it was started with. */
function isTheServer(record: ErpServerRecord): boolean {
  try {
    const argv = readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0');
    return argv.some((arg, index) => arg === '--http-port' && argv[index + 1] === String(record.port));
  } catch {
    return false;
  }
}

/**
 * Memory of an instance's ERP on the process runtime: the resident memory of its whole process
 * group (the server is started detached, so it leads a group that holds its workers too). Null
 * when no live server is recorded (the docker runtime keeps no pid file: its containers are
 * measured by the container engine, not here).
 */
export function erpMemoryBytes(record: ErpServerRecord | null): number | null {
  if (!record || !isTheServer(record)) return null;
  return groupMembers(record.pid).reduce((sum, pid) => sum + residentBytes(pid), 0);
}
