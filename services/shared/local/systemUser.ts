import { spawnSync } from 'node:child_process';

/** A local account a service runs as, with its ids for chown and spawn. */
export interface SystemUser {
  name: string;
  uid: number;
  gid: number;
}

const NAME = /^[a-z_][a-z0-9_-]{0,31}$/;

/**
 * The system user `name`, created when missing (a system account with its own group, no home and
 * no login shell). Only root can create one; anyone else is told which user to create.
 */
export function ensureSystemUser(name: string): SystemUser {
  if (!NAME.test(name)) throw new Error(`not a user name: ${JSON.stringify(name)}`);
  const found = lookUp(name);
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error(`the system user ${name} does not exist: create it (useradd --system --user-group ${name}) or run as root`);
  const created = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name], { encoding: 'utf8' });
  // Two processes may create it at once: the loser's "already exists" is fine.
  const user = lookUp(name);
  if (!user) throw new Error(`cannot create the system user ${name}: ${created.stderr.trim() || `useradd exited with ${created.status}`}`);
  return user;
}

function lookUp(name: string): SystemUser | null {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
