import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfigOrExit } from '#shared/config/config.ts';
import { createLogger } from '#shared/log.ts';
import { startPostgresCluster } from '#shared/local/postgresCluster.ts';
import { createKysely, createPool } from '#shared/db.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { resealSecrets } from '#shared/secrets/resealSecrets.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { migrateSecrets } from '#shared/secrets/secrets.ts';

const USAGE = `usage:
  npm run secrets -- rotate-master-key [--new-key-stdin]

Re-seals every secret (password hashes, SSH private keys) under a new master key, in one
transaction. Without --new-key-stdin a new key is generated. Stop the platform first: its running
processes hold the old key. With the local secrets file (FORJA_MASTER_KEY unset) the new key is
written there; with FORJA_MASTER_KEY set, the new key is printed once, to put in its place.`;

function fail(message: string, code: 1 | 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const [command, ...rest] = process.argv.slice(2);
if (command !== 'rotate-master-key' || rest.some((arg) => arg !== '--new-key-stdin')) fail(USAGE, 2);

const config = loadConfigOrExit();
const newKey = rest.includes('--new-key-stdin') ? Buffer.from(readFileSync(0, 'utf8').trim(), 'base64') : randomBytes(32);
if (newKey.length !== 32) fail('the new master key must be base64 of 32 bytes (openssl rand -base64 32)', 2);
const current = resolvePlatformSecrets(config);
if (current.masterKey.equals(newKey)) fail('the new master key is the current one: nothing to do', 2);

const logger = createLogger({ ...config, LOG_LEVEL: 'warn' }, 'secrets');
let databaseUrl = config.DATABASE_URL;
let stopCluster = async () => {};
if (!databaseUrl) {
  const cluster = await startPostgresCluster(join(config.FORJA_DATA_DIR, 'postgres'));
  if (!cluster.startedHere) fail('the platform is running (its PostgreSQL is up): stop npm start first, its processes hold the old master key', 1);
  databaseUrl = cluster.url;
  stopCluster = () => cluster.stop();
}
const pool = createPool(databaseUrl, { max: 2 });
const localFile = join(config.FORJA_DATA_DIR, 'local-secrets.json');
const keyFromFile = !config.FORJA_MASTER_KEY;
let exitCode = 0;
try {
  await migrateSecrets(createKysely(pool));
  // The next file is written before the database changes: if the rename below fails, the key is not lost.
  if (keyFromFile) writeFileSync(`${localFile}.next`, JSON.stringify({ ...readLocal(localFile), masterKey: newKey.toString('base64') }), { mode: 0o600 });
  const count = await resealSecrets(createKysely(pool), createSecretBox(current.masterKey), createSecretBox(newKey));
  if (keyFromFile) renameSync(`${localFile}.next`, localFile);
  process.stdout.write(`re-sealed ${count.userPasswords} password hash(es) and ${count.sshKeys} SSH key(s) under the new master key\n`);
  if (keyFromFile) process.stdout.write(`the new key is in ${localFile}; start the platform again\n`);
  else process.stdout.write(`set FORJA_MASTER_KEY=${newKey.toString('base64')} for every process and restart them; instance database passwords are re-set when each instance starts\n`);
} catch (error) {
  logger.error({ err: error }, 'rotation failed');
  process.stderr.write(`nothing was changed: ${(error as Error).message}\n`);
  exitCode = 1;
} finally {
  await pool.end();
  await stopCluster();
}
process.exit(exitCode);

function readLocal(path: string): Record<string, string> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>) : {};
}
