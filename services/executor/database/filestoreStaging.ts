import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, renameSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { at, openFolderBeneath, withFolderBeneath, type Owner } from '#shared/fs/beneath.ts';
import { removeTree } from '../runtime/tenantFolders.ts';

/**
 * Root builds a filestore where no tenant can reach: in `<root>/staging/<random>` (root's 0700, on
 * the same filesystem as the data dirs), never `<filestore>.partial` inside the tenant's folder,
 * where a link planted in its place sent root's writes anywhere. The finished tree is given to the
 * destination's owner there, then swapped in by renames through the handle of the destination's
 * parent folder; the old tree is renamed out into staging and removed with coreutils, which never
 * follows a link (Node's recursive rm walks by path).
 */
export interface Staging {
  /** The staging folder's path: root's alone, so working in it by path is safe. */
  readonly dir: string;
  /** Swaps `tree` (inside `dir`) in for `to`, given to the owner of `to`'s parent folder. */
  swapIn(tree: string, to: string): void;
  /** Removes the staging folder and all it holds. */
  remove(): void;
}

/** A fresh staging folder below `root` (FORJA_DATA_DIR, or the trusted folder a caller names). */
export function openStaging(root: string): Staging {
  const name = randomBytes(8).toString('hex');
  closeSync(openFolderBeneath(root, `staging/${name}`, { mode: 0o700 }));
  const dir = join(resolve(root), 'staging', name);
  return {
    dir,
    swapIn: (tree, to) => swapIn(root, dir, tree, to),
    remove: () => withFolderBeneath(root, 'staging', (fd) => removeTree(fd, name)),
  };
}

function swapIn(root: string, staging: string, tree: string, to: string): void {
  const parent = openFolderBeneath(root, inside(root, dirname(to)), { mode: 0o700 });
  try {
    const stats = fstatSync(parent);
    if (stats.uid !== process.getuid?.()) chownTree(tree, { uid: stats.uid, gid: stats.gid });
    const name = basename(to);
    const old = join(staging, `old-${randomBytes(4).toString('hex')}`);
    try {
      renameSync(at(parent, name), old); // a link in its place is moved out, not followed
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    renameSync(tree, at(parent, name));
    withFolderBeneath(root, inside(root, staging), (fd) => removeTree(fd, basename(old)));
  } finally {
    closeSync(parent);
  }
}

/** `path` relative to `root` ('' for root itself); a path outside it is refused. */
function inside(root: string, path: string): string {
  const rel = relative(resolve(root), resolve(path));
  if (rel.startsWith('..') || resolve(rel) === rel) throw new Error(`${path} is not below ${root}`);
  return rel;
}

function chownTree(tree: string, owner: Owner): void {
  const result = spawnSync('chown', ['-R', '-h', `${owner.uid}:${owner.gid}`, '--', tree], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cannot give the filestore to uid ${owner.uid}: ${result.stderr.trim()}`);
}

/** True when `dir` exists, asked as `reader` (null: as Forja itself). */
export function existsAs(dir: string, reader: Owner | null): boolean {
  return spawnSync('test', ['-e', dir], { ...(reader ?? {}) }).status === 0;
}

/**
 * Writes a tar of `dir` into `archive` (a new file in a staging folder), read by `tar` run as
 * `reader`, the tenant that owns `dir`: a link that tenant planted there only reaches what it can
 * read itself. The archive is then unpacked by Forja's checked unpacker (no links, no specials).
 */
export async function tarAs(dir: string, archive: string, reader: Owner | null, signal?: AbortSignal): Promise<void> {
  const out = openSync(archive, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const child = spawn('tar', ['-c', '-f', '-', '-C', dir, '.'], { cwd: '/', stdio: ['ignore', out, 'pipe'], ...(reader ?? {}), ...(signal ? { signal } : {}) });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = await new Promise<[number | null]>((done, fail) => {
      child.once('error', fail);
      child.once('close', (exit) => done([exit]));
    });
    if (code !== 0) throw new Error(`cannot read ${dir}: ${stderr.trim() || `tar exited with ${code}`}`);
  } finally {
    closeSync(out);
  }
}
