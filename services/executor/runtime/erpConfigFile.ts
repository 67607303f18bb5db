import { pbkdf2, randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fchmodSync, fchownSync, fstatSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Owner } from '#shared/fs/beneath.ts';

/**
 * The configuration file every ERP run gets with `-c`, the one place its options are written
 * (odoo/tools/config.py reads the `[options]` section; the command line keeps `-c` and per-run
 * flags). It closes the database manager (`list_db = False`) behind a master password nobody
 * knows: a real ERP started without one keeps the manager open with the master password `admin`,
 * and while it is `admin` the first password anyone submits to `/web/database/backup` or `/drop`
 * becomes the master password (addons/web/controllers/database.py, verify_access).
 *
 * It holds the database password too (no PGPASSWORD in the ERP's environment, nothing on its
 * command line, where /proc shows it), so it is 0600 and belongs to the account that runs the ERP
 * (the tenant's, tenantAccount.ts; an unreadable file is silently ignored by the ERP, manager open).
 * It lives in `run/` of the run's data folder, a folder Forja owns and the ERP cannot write, so the
 * ERP cannot replace it; every start writes it anew.
 */
export const ERP_CONFIG_FOLDER = 'run';

export const erpConfigDir = (dataDir: string): string => join(resolve(dataDir), ERP_CONFIG_FOLDER);
export const erpConfigFile = (dataDir: string): string => join(erpConfigDir(dataDir), 'erp.conf');

const derive = promisify(pbkdf2);
const ab64 = (bytes: Buffer): string => bytes.toString('base64').replaceAll('+', '.').replace(/=+$/, '');

/**
 * Rounds of the hash. The ERP's own crypt_context (odoo/tools/config.py) uses 600 000 for passwords
 * people choose; this one hashes 32 random bytes nobody keeps, which no number of guesses reaches,
 * and passlib verifies any rounds the hash names. 600 000 cost half a second of CPU at every start.
 */
const ROUNDS = 10_000;

/**
 * A fresh random master password, hashed as the ERP stores one (`config.set_admin_password`:
 * passlib's pbkdf2_sha512, `$pbkdf2-sha512$<rounds>$<salt>$<hash>` in passlib's base64 with `.`
 * for `+`). The password itself is dropped here: nobody, Forja included, can use the manager.
 */
export async function unknownMasterPasswordHash(): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(randomBytes(32), salt, ROUNDS, 64, 'sha512');
  return `$pbkdf2-sha512$${ROUNDS}$${ab64(salt)}$${ab64(hash)}`;
}

const OPTION_NAME = /^[a-z_]+$/;
const SAFE_VALUE = /^[^\r\n]*$/;

/** The file's text: `[options]` as odoo/tools/config.py reads it, no inline comments (the ERP would take them as part of the value). */
export function erpConfigText(options: Record<string, string>): string {
  const lines = Object.entries(options).map(([name, value]) => {
    if (!OPTION_NAME.test(name) || !SAFE_VALUE.test(value)) throw new Error(`erp.conf: refusing option ${JSON.stringify(name)} = ${JSON.stringify(value)}`);
    return `${name} = ${value}`;
  });
  return `; Written by Forja at each start of the ERP; edits are replaced.\n[options]\n${lines.join('\n')}\n`;
}

/**
 * Writes `run/erp.conf` under `dataDir` (`options` added after the database manager's two), 0600 and
 * given to `owner` (the account that runs the ERP; null: this process's own), replacing the one an
 * earlier run had, and returns its path. The folder is opened without following links and must be
 * this process's own and writable by no one else; the file is created exclusively beside the old
 * one through that handle and renamed over it, so nothing placed in the ERP's folder can redirect
 * the write.
 */
export async function writeErpConfig(dataDir: string, options: Record<string, string> = {}, owner: Owner | null = null): Promise<string> {
  const text = erpConfigText({ admin_passwd: await unknownMasterPasswordHash(), list_db: 'False', ...options });
  const dir = erpConfigDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const dirFd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const stats = fstatSync(dirFd);
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) throw new Error(`${dir} belongs to uid ${stats.uid}, not to Forja (uid ${uid}): remove it, Forja makes it again`);
    // Exactly: writable by others lets them swap the file; the ERP's account must traverse it to reach its file.
    if ((stats.mode & 0o777) !== 0o755) fchmodSync(dirFd, 0o755);
    // /proc/self/fd/N is the folder opened above, whatever its path leads to by now.
    const at = existsSync(`/proc/self/fd/${dirFd}`) ? `/proc/self/fd/${dirFd}` : dir;
    const temporary = join(at, `.erp.conf.${randomBytes(6).toString('hex')}`);
    const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      fchmodSync(fd, 0o600); // whatever the umask
      if (owner) fchownSync(fd, owner.uid, owner.gid);
      writeSync(fd, text);
      fsyncSync(fd);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, join(at, 'erp.conf'));
  } finally {
    closeSync(dirFd);
  }
  return erpConfigFile(dataDir);
}
