import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensureSystemUser, type SystemUser } from '#shared/local/systemUser.ts';
import type { ErpRunSpec } from './runtime.ts';

/** The OS user ERP servers and one-shot runs run as, when the executor runs as root. */
export const ERP_OS_USER = 'forja-erp';

/**
 * Customer code runs in the ERP, so the ERP never runs as root: as root the executor runs it as
 * `forja-erp` (created when missing), with no rights on Forja's data, keys or other services.
 * Run as another user, the executor is unprivileged already and the ERP runs as that user.
 */
export function erpAccount(): SystemUser | null {
  return process.getuid?.() === 0 ? ensureSystemUser(ERP_OS_USER) : null;
}

/** Folders under the ERP's data dir that it writes (Odoo's filestore, sessions and downloaded addons). */
const WRITTEN_BY_THE_ERP = ['filestore', 'sessions', 'addons'];

/**
 * Makes what the ERP writes its own before it starts: the instance folder (its --data-dir), the
 * log folder and its files, and the filestore the executor restored or copied as root. The code
 * checked out under `src` stays the executor's: the ERP only reads it.
 */
export function handFoldersTo(user: SystemUser | null, spec: Pick<ErpRunSpec, 'dataDir' | 'logFile'>): void {
  const dataDir = resolve(spec.dataDir);
  const logDir = dirname(resolve(spec.logFile));
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  if (!user) return;
  own(dataDir, user);
  own(logDir, user);
  for (const file of readdirSync(logDir)) own(join(logDir, file), user);
  for (const name of WRITTEN_BY_THE_ERP) {
    const dir = join(dataDir, name);
    if (existsSync(dir) && !ownedTree(dir, user)) {
      const result = spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, dir], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`cannot give ${dir} to ${user.name}: ${result.stderr.trim()}`);
    }
  }
}

function own(path: string, user: SystemUser): void {
  const stats = statSync(path);
  if (stats.uid !== user.uid || stats.gid !== user.gid) chownSync(path, user.uid, user.gid);
}

/** True when the folder and its direct entries are the user's (a restore or copy replaces whole trees, so a root-owned one shows at the top). */
function ownedTree(dir: string, user: SystemUser): boolean {
  if (statSync(dir).uid !== user.uid) return false;
  return readdirSync(dir).every((entry) => statSync(join(dir, entry)).uid === user.uid);
}
