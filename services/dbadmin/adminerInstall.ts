import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from '#shared/local/findOnPath.ts';

/** Where Debian's adminer package puts Adminer (adminer.php, compiled, and its plugins). */
export const DEBIAN_ADMINER_DIR = '/usr/share/adminer';

export type AdminerInstall = { php: string; adminerDir: string } | { missing: string };

/** PHP's command line with its PostgreSQL extension, and Adminer: what the database admin needs, or what is missing. */
export function findAdminer(adminerDir = DEBIAN_ADMINER_DIR, searchPath = process.env['PATH'] ?? ''): AdminerInstall {
  const php = findOnPath('php', searchPath);
  const missing: string[] = [];
  if (!php) missing.push('php-cli');
  else if (!spawnSync(php, ['-m'], { encoding: 'utf8' }).stdout.split('\n').includes('pgsql')) missing.push('php-pgsql');
  if (!existsSync(join(adminerDir, 'adminer.php')) || !existsSync(join(adminerDir, 'plugins', 'plugin.php'))) missing.push('adminer');
  if (missing.length > 0) return { missing: `not installed (apt-get install ${missing.join(' ')})` };
  return { php: php!, adminerDir };
}
