import { closeSync, constants, fchmodSync, fchownSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { isAbsolute, normalize, sep } from 'node:path';

/**
 * Root never works by path inside a folder a less-trusted account can write: that account can
 * swap any name there for a link to Forja's secrets, another tenant's files or /etc between
 * Forja's check and its use. Every path below a trusted `base` (a folder whose every parent is
 * Forja's) is resolved here one name at a time from an open folder, never following a link
 * (Linux's openat with O_NOFOLLOW, reached through /proc/self/fd since Node has no openat), and
 * the work (read, write, chown, chmod) is done on the open handle, never again by path.
 *
 * Callers name the part that a tenant may write as `relative`; `base` itself is trusted as it is.
 */

/** A path below `base` that is, or passes through, a link or something that is not a folder: refused. */
export class LinkRefusedError extends Error {
  override readonly name = 'LinkRefusedError';
  readonly code = 'ELINKREFUSED';
  constructor(readonly path: string, reason: string) {
    super(`refused ${path}: ${reason}; Forja never follows a link below a folder an instance can write`);
  }
}

export interface Owner {
  uid: number;
  gid: number;
}

/** O_PATH (Linux, 010000000 octal): a handle to an inode without opening it for I/O; Node does not export it. */
export const O_PATH = 0o10000000;
const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The path of `name` inside the folder open as `fd`: the kernel resolves it from the handle, not from a path. */
export const at = (fd: number, name?: string): string => (name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`);

/** The names of `relative`; `..`, absolute paths and empty names are refused (they would leave `base`). */
export function namesOf(relative: string): string[] {
  if (relative === '' || relative === '.') return [];
  if (isAbsolute(relative)) throw new Error(`not a relative path: ${JSON.stringify(relative)}`);
  const names = normalize(relative).split(sep).filter((name) => name !== '' && name !== '.');
  if (names.some((name) => name === '..')) throw new Error(`a path leading out of its folder: ${JSON.stringify(relative)}`);
  return names;
}

const errnoOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? '';

/** ELOOP: the name was a link (O_NOFOLLOW); ENOTDIR: it is no folder (a file, or a link O_DIRECTORY met first). */
function refusal(error: unknown, path: string): Error {
  const code = errnoOf(error);
  if (code === 'ELOOP') return new LinkRefusedError(path, 'it is a symbolic link');
  if (code === 'ENOTDIR') return new LinkRefusedError(path, 'it is a symbolic link or not a folder');
  return error as Error;
}

export interface CreateFolders {
  /** Mode of the folders created (and of existing ones when `enforce`). */
  mode: number;
  /** Who gets the folders created; null = the caller's own. */
  owner?: Owner | null;
}

/**
 * Opens the folder `relative` below `base` (`base` itself for '') without following a link, and
 * returns its descriptor, which the caller closes. With `create`, missing folders are made with
 * its mode and owner (chowned through their handle); existing ones are left as they are.
 */
export function openFolderBeneath(base: string, relative: string, create?: CreateFolders): number {
  let fd = openSync(base, constants.O_RDONLY | constants.O_DIRECTORY);
  let walked = base;
  try {
    for (const name of namesOf(relative)) {
      walked = `${walked}/${name}`;
      let next: number;
      try {
        next = openSync(at(fd, name), DIRECTORY);
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT' || !create) throw refusal(error, walked);
        next = makeFolder(fd, name, walked, create);
      }
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function makeFolder(parent: number, name: string, path: string, create: CreateFolders): number {
  try {
    mkdirSync(at(parent, name), { mode: create.mode });
  } catch (error) {
    // Made by someone else meanwhile: opened below like any existing folder (a link is still refused).
    if (errnoOf(error) !== 'EEXIST') throw error;
  }
  let fd: number;
  try {
    fd = openSync(at(parent, name), DIRECTORY);
  } catch (error) {
    throw refusal(error, path);
  }
  try {
    fchmodSync(fd, create.mode);
    if (create.owner) fchownSync(fd, create.owner.uid, create.owner.gid);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Runs `work` with the folder `relative` below `base` open (see openFolderBeneath), and closes it. */
export function withFolderBeneath<T>(base: string, relative: string, work: (fd: number) => T, create?: CreateFolders): T {
  const fd = openFolderBeneath(base, relative, create);
  try {
    return work(fd);
  } finally {
    closeSync(fd);
  }
}

/** Splits `relative` into its folder and its last name (a file's). */
function split(relative: string): { folder: string; name: string } {
  const names = namesOf(relative);
  const name = names.pop();
  if (name === undefined) throw new Error(`no file name in ${JSON.stringify(relative)}`);
  return { folder: names.join('/'), name };
}

/**
 * Opens the file `relative` below `base` with `flags` (O_NOFOLLOW is always added: a link in its
 * place is refused) and returns its descriptor. Creating flags (O_CREAT) make it with `mode`.
 */
export function openFileBeneath(base: string, relative: string, flags: number, mode = 0o600, create?: CreateFolders): number {
  const { folder, name } = split(relative);
  return withFolderBeneath(
    base,
    folder,
    (dir) => {
      try {
        return openSync(at(dir, name), flags | constants.O_NOFOLLOW, mode);
      } catch (error) {
        throw refusal(error, `${base}/${relative}`);
      }
    },
    create,
  );
}

export interface WriteOptions {
  mode: number;
  owner?: Owner | null;
  /** Folders made on the way (with this mode and owner); unset = they must exist. */
  folders?: CreateFolders;
}

/**
 * Writes `content` as the file `relative` below `base`, replacing it whole: written to a fresh
 * name beside it (O_EXCL, so never through a planted link), given its mode and owner through its
 * handle, then renamed over the old one inside the open folder (a link there is replaced, not followed).
 */
export function writeFileBeneath(base: string, relative: string, content: string | Buffer, options: WriteOptions): void {
  const { folder, name } = split(relative);
  withFolderBeneath(
    base,
    folder,
    (dir) => {
      const temp = `.${name}.${process.pid}.${Date.now().toString(36)}.tmp`;
      const fd = openSync(at(dir, temp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, options.mode);
      try {
        const bytes = typeof content === 'string' ? Buffer.from(content) : content;
        for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
        fchmodSync(fd, options.mode);
        if (options.owner) fchownSync(fd, options.owner.uid, options.owner.gid);
      } catch (error) {
        closeSync(fd);
        rmSync(at(dir, temp), { force: true });
        throw error;
      }
      closeSync(fd);
      renameSync(at(dir, temp), at(dir, name));
    },
    options.folders,
  );
}

/** The stats of what is at `relative` below `base` (a link is reported as a link, never followed), or null when nothing is there. */
export function lstatBeneath(base: string, relative: string): Stats | null {
  const names = namesOf(relative);
  if (names.length === 0) return fstatOf(openSync(base, constants.O_RDONLY | constants.O_DIRECTORY));
  const { folder, name } = split(relative);
  let dir: number;
  try {
    dir = openFolderBeneath(base, folder);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    return fstatOf(openSync(at(dir, name), O_PATH | constants.O_NOFOLLOW));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw error;
  } finally {
    closeSync(dir);
  }
}

function fstatOf(fd: number): Stats {
  try {
    return fstatSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Gives what is at `relative` below `base` to `owner` with `mode`, through a handle opened without
 * following a link: a link in its place is removed instead (nothing of Forja's ever puts one there).
 * Nothing there: nothing done. Returns what it found.
 */
export function handOverBeneath(base: string, relative: string, owner: Owner, mode?: number): 'file' | 'folder' | 'link-removed' | 'missing' {
  const { folder, name } = split(relative);
  return withFolderBeneath(base, folder, (dir) => {
    let fd: number;
    try {
      fd = openSync(at(dir, name), O_PATH | constants.O_NOFOLLOW);
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return 'missing';
      throw error;
    }
    let stats: Stats;
    try {
      stats = fstatSync(fd);
    } finally {
      closeSync(fd);
    }
    if (stats.isSymbolicLink()) {
      unlinkSync(at(dir, name));
      return 'link-removed';
    }
    // fchown and fchmod need a descriptor opened for I/O: opened again, still without following a link.
    const handle = openSync(at(dir, name), (stats.isDirectory() ? constants.O_RDONLY | constants.O_DIRECTORY : constants.O_RDONLY) | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      if (stats.isDirectory() !== fstatSync(handle).isDirectory()) throw new LinkRefusedError(`${base}/${relative}`, 'it changed while being handed over');
      if (stats.uid !== owner.uid || stats.gid !== owner.gid) fchownSync(handle, owner.uid, owner.gid);
      if (mode !== undefined) fchmodSync(handle, mode);
    } finally {
      closeSync(handle);
    }
    return stats.isDirectory() ? 'folder' : 'file';
  });
}
