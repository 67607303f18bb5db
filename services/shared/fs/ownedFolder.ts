import { closeSync, constants, fchmodSync, fchownSync, fstatSync, lchownSync, mkdirSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { at, LinkRefusedError, O_PATH, type Owner } from './beneath.ts';

const FOLDER = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const errnoOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? '';

/**
 * The folder `name` inside the folder open as `dir`, given to `owner` with `mode` through its own
 * handle, and returned open (the caller closes it). Made when missing. A link in its place is one
 * the tenant planted (Forja never puts one there): it is removed, never followed, and the folder
 * made anew. Anything else that is not a folder (a file) is refused.
 */
export function ownedFolderAt(dir: number, name: string, owner: Owner | null, mode: number): number {
  let fd: number;
  try {
    fd = openSync(at(dir, name), FOLDER);
  } catch (error) {
    // O_DIRECTORY|O_NOFOLLOW on a link gives ELOOP or ENOTDIR depending on the kernel's order of checks.
    const code = errnoOf(error);
    if (code === 'ELOOP' || code === 'ENOTDIR') removeLinkAt(dir, name);
    else if (code !== 'ENOENT') throw error;
    try {
      mkdirSync(at(dir, name), { mode });
    } catch (made) {
      if (errnoOf(made) !== 'EEXIST') throw made;
    }
    try {
      fd = openSync(at(dir, name), FOLDER);
    } catch (again) {
      throw new LinkRefusedError(name, `it is not a folder (${errnoOf(again)})`);
    }
  }
  try {
    const stats = fstatSync(fd);
    if (owner && (stats.uid !== owner.uid || stats.gid !== owner.gid)) fchownSync(fd, owner.uid, owner.gid);
    if ((stats.mode & 0o7777) !== mode) fchmodSync(fd, mode);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Removes `name` inside `dir` when it is a link; refuses anything else that is not a folder. */
function removeLinkAt(dir: number, name: string): void {
  const probe = openSync(at(dir, name), O_PATH | constants.O_NOFOLLOW);
  let isLink: boolean;
  try {
    isLink = fstatSync(probe).isSymbolicLink();
  } finally {
    closeSync(probe);
  }
  if (!isLink) throw new LinkRefusedError(name, 'it is a file where a folder belongs');
  unlinkSync(at(dir, name));
}

/** Runs `work` with the folder `name` inside `dir` owned as ownedFolderAt makes it, then closes it. */
export function withOwnedFolderAt<T>(dir: number, name: string, owner: Owner | null, mode: number, work: (fd: number) => T): T {
  const fd = ownedFolderAt(dir, name, owner, mode);
  try {
    return work(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Gives everything inside the folder open as `dir` to `owner` (a folder an older Forja gave to the
 * shared `forja-erp` account, now the instance's own). Links are chowned themselves (lchown on a
 * name inside an open folder: the kernel resolves the folder from its handle, and the last name is
 * never followed); folders are entered through handles opened without following a link.
 */
export function handOverTreeAt(dir: number, owner: Owner): void {
  for (const name of readdirSync(at(dir))) {
    let child: number;
    try {
      child = openSync(at(dir, name), FOLDER);
    } catch (error) {
      if (!['ELOOP', 'ENOTDIR'].includes(errnoOf(error))) throw error;
      lchownSync(at(dir, name), owner.uid, owner.gid);
      continue;
    }
    try {
      fchownSync(child, owner.uid, owner.gid);
      handOverTreeAt(child, owner);
    } finally {
      closeSync(child);
    }
  }
}
