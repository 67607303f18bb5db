import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { at, handOverBeneath, lstatBeneath, O_PATH, withFolderBeneath, type Owner } from '#shared/fs/beneath.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { tenantAccount, type TenantKind, type UidRange } from '#shared/local/tenantAccount.ts';

/**
 * The folders of an instance or migration below FORJA_DATA_DIR, and who owns them. The tenant's
 * account (tenantAccount.ts) only ever owns leaves: every folder above them stays root's, so
 * nothing root opens, chowns or appends to by path lies in a folder the tenant can write.
 *
 *   instances/              root 0711 (no tenant lists the others)
 *   instances/<slug>/       root:fi-<slug> 0750: the ERP's --data-dir and cwd, traversed only
 *     logs/ src/ pid files  root (logs/ 0700: the ERP's output reaches it through a descriptor)
 *     filestore/ sessions/ addons/ home/   fi-<slug> 0700 (all Odoo writes in its data dir: odoo/tools/config.py)
 *     tools/                root:fi-<slug> 0750 (web makes its leaves)
 *   migrations/<slug>/      root:fm-<slug> 0750; input/ runs/ root; work/ root:fm-<slug> 0750 with the same four leaves
 *
 * An instance laid out by an earlier Forja (everything `forja-erp`'s, links planted anywhere in
 * it) is converted at its next job or start: links are removed, never followed.
 */
const TOP = 0o711;
const TRAVERSED = 0o750;
const PRIVATE = 0o700;
/** What the ERP writes in its data dir, plus the HOME it (and web's shell) gets. */
export const TENANT_LEAVES = ['filestore', 'sessions', 'addons', 'home'] as const;

/** The account of the ERP run for `tenant`: null when Forja is not root (it then runs everything as itself). */
export const accountOf = (tenant: { kind: TenantKind; slug: string }, range: UidRange): SystemUser | null => tenantAccount(tenant.kind, tenant.slug, range);

const ROOT: Owner = { uid: 0, gid: 0 };
const errno = (error: unknown) => (error as NodeJS.ErrnoException).code ?? '';

/** Lays out `instances/<slug>/` below `root` for `account` (see above) and returns the data dir's relative path. */
export function layOutInstance(root: string, slug: string, account: SystemUser | null): string {
  const dir = `instances/${slug}`;
  layOut(root, 'instances', dir, account);
  reclaim(root, `${dir}/logs`, account);
  ensure(root, `${dir}/tools`, account ? { uid: 0, gid: account.gid } : null, TRAVERSED);
  return dir;
}

/** Lays out `migrations/<slug>/` and its `work/` (the migration ERP's data dir); run folders are root's (their logs: logFile.ts). */
export function layOutMigration(root: string, slug: string, account: SystemUser | null): string {
  const top = `migrations/${slug}`;
  ensure(root, 'migrations', account ? ROOT : null, TOP);
  ensure(root, top, account ? { uid: 0, gid: account.gid } : null, TRAVERSED);
  removeLinks(root, top);
  ensure(root, `${top}/runs`, account ? ROOT : null, PRIVATE);
  // An earlier Forja gave each run's folder to the ERP's user: taken back, its links removed.
  for (const run of withFolderBeneath(root, `${top}/runs`, (fd) => readdirSync(at(fd)))) reclaim(root, `${top}/runs/${run}`, account);
  layOut(root, top, `${top}/work`, account);
  return `${top}/work`;
}

/** The data dir `dir` below `parent` (both made when missing), its leaves handed to `account`. */
function layOut(root: string, parent: string, dir: string, account: SystemUser | null): void {
  // `instances/` lists no tenant's folder to another; a migration's own folder is traversed by its account.
  const nested = parent.includes('/');
  ensure(root, parent, account ? (nested ? { uid: 0, gid: account.gid } : ROOT) : null, nested ? TRAVERSED : TOP);
  ensure(root, dir, account ? { uid: 0, gid: account.gid } : null, TRAVERSED);
  removeLinks(root, dir);
  for (const leaf of TENANT_LEAVES) {
    const path = `${dir}/${leaf}`;
    if (!account) {
      ensure(root, path, null, PRIVATE);
      continue;
    }
    // A link is removed; a tree of another owner (an earlier layout's) is given whole, links untouched.
    const found = lstatBeneath(root, path);
    if (found?.isDirectory() && found.uid !== account.uid) chownTree(root, path, account);
    ensure(root, path, account, PRIVATE);
  }
}

/** The folder at `path` (made when missing, refused when a link is on its way), given `owner` and `mode` through its handle. */
function ensure(root: string, path: string, owner: Owner | null, mode: number): void {
  if (handOverBeneath(root, path, owner ?? ownOwner(), mode) === 'folder') return;
  withFolderBeneath(root, path, (fd) => {
    fchmodSync(fd, mode);
    if (owner) fchownSync(fd, owner.uid, owner.gid);
  }, { mode, owner });
}

const ownOwner = (): Owner => ({ uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 });

/**
 * `chown -R -h` with coreutils, which walks the tree with openat and never follows a link (Node's
 * recursive walks go by path). Run on `/proc/self/fd/<n>/.` of the folder opened without following
 * links, so its path cannot be swapped meanwhile.
 */
function chownTree(root: string, path: string, account: SystemUser): void {
  withFolderBeneath(root, path, (fd) => {
    const result = spawnSync('chown', ['-R', '-h', `${account.uid}:${account.gid}`, '.'], { cwd: at(fd), encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`cannot give ${path} to ${account.name}: ${result.stderr.trim()}`);
  });
}

/** Removes the links right inside `dir` (an earlier layout let the ERP's user plant them there). */
function removeLinks(root: string, dir: string): void {
  withFolderBeneath(root, dir, (fd) => {
    for (const name of readdirSync(at(fd))) if (kindOf(fd, name) === 'link') unlinkSync(at(fd, name));
  });
}

function kindOf(dir: number, name: string): 'link' | 'file' | 'folder' | 'other' | 'missing' {
  let fd: number;
  try {
    fd = openSync(at(dir, name), O_PATH | constants.O_NOFOLLOW);
  } catch (error) {
    if (errno(error) === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    return stats.isSymbolicLink() ? 'link' : stats.isFile() ? 'file' : stats.isDirectory() ? 'folder' : 'other';
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes `dir` (a log folder) root's alone: a link in its place or inside it is removed, files are
 * given to root 0600 through their handle, anything else (a fifo, a folder) is removed too.
 */
function reclaim(root: string, dir: string, account: SystemUser | null): void {
  const owner = account ? ROOT : null;
  if (handOverBeneath(root, dir, owner ?? ownOwner(), PRIVATE) !== 'folder') ensure(root, dir, owner, PRIVATE);
  withFolderBeneath(root, dir, (fd) => {
    for (const name of readdirSync(at(fd))) {
      const kind = kindOf(fd, name);
      if (kind === 'file') handOverBeneath(root, `${dir}/${name}`, owner ?? ownOwner(), 0o600);
      else if (kind === 'link' || kind === 'other') unlinkSync(at(fd, name));
      else if (kind === 'folder') removeTree(fd, name);
    }
  });
}

/** `rm -rf --one-file-system` of `name` in the open folder `dir`: coreutils removes a tree without following links. */
export function removeTree(dir: number, name: string): void {
  const result = spawnSync('rm', ['-rf', '--one-file-system', '--', name], { cwd: at(dir), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cannot remove ${name}: ${result.stderr.trim()}`);
}

/**
 * Lays out the folders of `spec`'s tenant (an instance's, or a migration's, whose data dir is its
 * `work/`) and returns the account its ERP runs as (null when Forja is not root).
 */
export function prepareTenant(spec: { root: string; dataDir: string; tenant: { kind: TenantKind; slug: string } }, range: UidRange): SystemUser | null {
  const account = accountOf(spec.tenant, range);
  const dir = spec.tenant.kind === 'instance' ? layOutInstance(spec.root, spec.tenant.slug, account) : layOutMigration(spec.root, spec.tenant.slug, account);
  if (resolve(spec.root, dir) !== resolve(spec.dataDir)) throw new Error(`the ERP's data dir ${spec.dataDir} is not ${spec.tenant.kind} ${spec.tenant.slug}'s folder ${dir}`);
  return account;
}
