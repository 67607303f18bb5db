import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';

/**
 * Installs a Debian package for a local service that is missing (`nats-server`, `postgresql`), as
 * the platform allows for `npm start` and `npm test` on a fresh machine. Only as root; anyone
 * else gets `hint` instead. A fresh machine has no package lists, so a failed install updates them
 * once and tries again.
 */
export function installDebianPackage(name: string, hint: string): void {
  if (process.getuid?.() !== 0) throw new Error(hint);
  if (name.startsWith('postgresql')) {
    // We run private clusters; the package's default cluster on port 5432 would only be in the way.
    mkdirSync('/etc/postgresql-common', { recursive: true });
    const conf = '/etc/postgresql-common/createcluster.conf';
    if (!existsSync(conf)) writeFileSync(conf, 'create_main_cluster = false\n');
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', name], { stdio: 'inherit', env }).status;
  if (install() === 0) return;
  if (spawnSync('apt-get', ['update'], { stdio: 'inherit', env }).status === 0 && install() === 0) return;
  throw new Error(`\`apt-get install ${name}\` failed. ${hint}`);
}
