import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fchmodSync, fchownSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { at, O_PATH, withFolderBeneath, type Owner } from '#shared/fs/beneath.ts';
import { ownedFolderAt, handOverTreeAt, withOwnedFolderAt } from '#shared/fs/ownedFolder.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import type { InstanceToolLaunch, InstanceToolSpec } from './instanceToolSpec.ts';

/** Linux's bound on a unix socket's path is 108 bytes; a deep FORJA_DATA_DIR and a long slug pass it. */
const SOCKET_PATH_MAX = 100;

/** The path under which web serves a tool of an instance (no trailing slash). */
export const toolBasePath = (slug: string, kind: string): string => `/instances/${slug}/${kind}/proxy`;

/** A free port on 127.0.0.1 (asked of the kernel, released for the tool to take). */
function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The uid a tool's processes and files have: its account's, or web's own when web is not root. */
export const toolUid = (owner: Owner | null): number => owner?.uid ?? process.getuid!();

/**
 * Ends a tool left running by a web that died without stopping it (its socket is gone, so nothing
 * could reach it again). The pid file is in the tenant's folder, so the tenant may have written
 * any pid there: only a process of the tool's account whose working folder is the tool's own is
 * taken for it (the id may also have been reused since).
 */
export function stopLeftover(folder: number, workDir: string, uid: number): void {
  let pid: number;
  try {
    pid = readPid(folder);
    if (!Number.isInteger(pid) || pid <= 1 || readlinkSync(`/proc/${pid}/cwd`) !== workDir) return;
    const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (!uids || uids.slice(1).some((id) => Number(id) !== uid)) return;
  } catch {
    return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone in the meantime.
  }
}

/** tool.pid, read without following a link; a FIFO or anything but a small file reads as no pid. */
function readPid(folder: number): number {
  const fd = openSync(at(folder, 'tool.pid'), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) return 0;
    const buffer = Buffer.alloc(32);
    return Number(buffer.subarray(0, readSync(fd, buffer)).toString().trim());
  } finally {
    closeSync(fd);
  }
}

/**
 * The tool's own folder, `instances/<slug>/tools/<kind>`, ready for one start and open (the caller
 * closes it). `tools/` is root's (group: the instance's account, which traverses it and cannot
 * plant a name there); `<kind>` is the account's, 0700. Everything is opened from handles without
 * following a link; a `<kind>` an older Forja gave to the shared forja-erp is handed over whole.
 */
function openToolFolder(instances: string, slug: string, kind: string, user: SystemUser | null): number {
  const owner = user ? { uid: user.uid, gid: user.gid } : null;
  const rootsForTenant = user ? { uid: process.getuid!(), gid: user.gid } : null;
  const create = { mode: user ? 0o750 : 0o700, owner: rootsForTenant };
  return withFolderBeneath(
    instances,
    slug,
    (instance) =>
      withOwnedFolderAt(instance, 'tools', rootsForTenant, create.mode, (tools) => {
        const before = ownerOf(tools, kind);
        const fd = ownedFolderAt(tools, kind, owner, 0o700);
        if (owner && before !== null && before !== owner.uid) handOverTreeAt(fd, owner);
        return fd;
      }),
    create,
  );
}

/** The uid of what is at `name` inside `dir` (a link's own), or null when nothing is there. */
function ownerOf(dir: number, name: string): number | null {
  let fd: number;
  try {
    fd = openSync(at(dir, name), O_PATH | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    return fstatSync(fd).uid;
  } finally {
    closeSync(fd);
  }
}

/** A fresh folder in /tmp for a socket whose path would be too long: root makes it, then gives it to the tool's account alone. */
function privateTempFolder(owner: Owner | null): string {
  const path = mkdtempSync(join(tmpdir(), 'forja-tool-'));
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    fchmodSync(fd, 0o700);
    if (owner) fchownSync(fd, owner.uid, owner.gid);
  } finally {
    closeSync(fd);
  }
  return path;
}

/**
 * Prepares one start of a tool: its own folder under the instance's (`tools/<kind>`, the tool account's),
 * a fresh secret, and a port or a socket in a folder only that account and Forja can reach.
 */
export async function prepareLaunch(spec: InstanceToolSpec, dataDir: string, slug: string, user: SystemUser | null): Promise<InstanceToolLaunch> {
  const instances = join(dataDir, 'instances');
  mkdirSync(instances, { recursive: true });
  const instanceDir = join(instances, slug);
  const sourceDir = join(instanceDir, 'src');
  const owner = user ? { uid: user.uid, gid: user.gid } : null;
  const relative = `${slug}/tools/${spec.kind}`;
  const workDir = join(instances, relative);
  let socket = { base: instances, relative: `${relative}/tool.sock` };
  const folder = openToolFolder(instances, slug, spec.kind, user);
  try {
    stopLeftover(folder, workDir, toolUid(owner));
    // A socket left by the last start, or a link the tenant put there: removed, never followed.
    rmSync(at(folder, 'tool.sock'), { force: true });
  } finally {
    closeSync(folder);
  }
  if (join(instances, socket.relative).length > SOCKET_PATH_MAX) socket = { base: privateTempFolder(owner), relative: 'tool.sock' };
  return {
    slug,
    instanceDir,
    sourceDir: existsSync(sourceDir) ? sourceDir : null,
    workDir,
    folder: { base: instances, relative },
    owner,
    port: spec.listen === 'port' ? await freeLocalPort() : 0,
    socketPath: join(socket.base, socket.relative),
    socket,
    socketHandle: null,
    token: randomBytes(32).toString('hex'),
    basePath: toolBasePath(slug, spec.kind),
  };
}

/**
 * The tool's log (its output), opened for appending by web through the tool's folder's handle. Root's:
 * the tool writes to it through the descriptor it inherits. What the tenant may have put in its
 * place (a link, a FIFO: O_NONBLOCK never waits on one, a hard link to another file) is removed,
 * never written through, and a fresh log made.
 */
export function openToolLog(launch: InstanceToolLaunch): number {
  return withFolderBeneath(launch.folder.base, launch.folder.relative, (folder) => {
    const log = at(folder, 'tool.log');
    const append = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    try {
      const fd = openSync(log, append | constants.O_CREAT, 0o600);
      const stats = fstatSync(fd);
      if (stats.isFile() && stats.nlink === 1) return fd;
      closeSync(fd);
    } catch (error) {
      // ELOOP: a link; ENXIO: a FIFO nobody reads.
      if (!['ELOOP', 'ENXIO'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
    rmSync(log, { force: true });
    return openSync(log, append | constants.O_CREAT | constants.O_EXCL, 0o600);
  });
}
