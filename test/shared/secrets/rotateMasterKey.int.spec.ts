import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { createKysely, createPool } from '#shared/db.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { migrateSecrets, passwordStore } from '#shared/secrets/secrets.ts';
import { sshKeySecrets } from '#shared/secrets/sshKeySecrets.ts';
import { createTestDatabase } from '#test/support/postgres.ts';

/** `npm run secrets -- …` as an operator runs it. */
function secretsCli(args: string[], env: Record<string, string>, input?: string) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/secrets.ts', ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...env },
    encoding: 'utf8',
    input: input ?? '',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run secrets -- rotate-master-key', function () {
  this.timeout(120_000);
  let databaseUrl: string;
  let db: Kysely<unknown>;
  let pool: ReturnType<typeof createPool>;
  let dataDir: string;
  const oldKey = randomBytes(32);

  before(async () => {
    databaseUrl = await createTestDatabase('rotate');
    pool = createPool(databaseUrl, { max: 2 });
    db = createKysely(pool);
    await migrateSecrets(db);
    dataDir = mkdtempSync(join(tmpdir(), 'forja-rotate-'));
  });
  after(async () => {
    await pool?.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function seal(key: Buffer) {
    const box = createSecretBox(key);
    await passwordStore(db, box).save(`user-${randomBytes(4).toString('hex')}`, 'scrypt$hash');
    return sshKeySecrets(db, box).add(`key ${randomBytes(4).toString('hex')}`, '-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n');
  }

  it('re-seals every secret under a new key given on stdin, and says to set it (FORJA_MASTER_KEY deployments)', async () => {
    const keyId = await seal(oldKey);
    const newKey = randomBytes(32);
    const run = secretsCli(['rotate-master-key', '--new-key-stdin'], { DATABASE_URL: databaseUrl, FORJA_DATA_DIR: dataDir, FORJA_MASTER_KEY: oldKey.toString('base64') }, newKey.toString('base64'));
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/re-sealed \d+ password hash\(es\) and \d+ SSH key\(s\)/);
    expect(run.stdout).to.include(`FORJA_MASTER_KEY=${newKey.toString('base64')}`);
    const [opened] = await sshKeySecrets(db, createSecretBox(newKey)).open([keyId]);
    expect(opened?.privateKey).to.match(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    let oldOpens = true;
    await sshKeySecrets(db, createSecretBox(oldKey)).open([keyId]).catch(() => (oldOpens = false));
    expect(oldOpens, 'the old key opens nothing any more').to.equal(false);
    // The next test starts from the new key.
    oldKey.set(newKey);
  });

  it('with the local secrets file, generates the key and writes it there', async () => {
    writeFileSync(join(dataDir, 'local-secrets.json'), JSON.stringify({ masterKey: oldKey.toString('base64'), webhookSecret: 'w', serviceToken: 's' }), { mode: 0o600 });
    const keyId = await seal(oldKey);
    const run = secretsCli(['rotate-master-key'], { DATABASE_URL: databaseUrl, FORJA_DATA_DIR: dataDir });
    expect(run.code, run.stderr).to.equal(0);
    const written = JSON.parse(readFileSync(join(dataDir, 'local-secrets.json'), 'utf8')) as { masterKey: string; webhookSecret: string };
    expect(written.webhookSecret, 'the other secrets are kept').to.equal('w');
    const [opened] = await sshKeySecrets(db, createSecretBox(Buffer.from(written.masterKey, 'base64'))).open([keyId]);
    expect(opened?.keyId).to.equal(keyId);
    expect(run.stdout).not.to.include(written.masterKey);
  });

  it('changes nothing when the current key does not open the secrets (exit 1)', async () => {
    const wrong = randomBytes(32);
    const before = await db.withSchema('secrets').selectFrom('ssh_keys' as never).selectAll().execute();
    const run = secretsCli(['rotate-master-key'], { DATABASE_URL: databaseUrl, FORJA_DATA_DIR: dataDir, FORJA_MASTER_KEY: wrong.toString('base64') });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(/nothing was changed: the current master key does not open/);
    expect(await db.withSchema('secrets').selectFrom('ssh_keys' as never).selectAll().execute()).to.deep.equal(before);
  });

  it('refuses usage errors and a malformed new key with exit 2', () => {
    const env = { DATABASE_URL: databaseUrl, FORJA_DATA_DIR: dataDir };
    expect(secretsCli([], env).code).to.equal(2);
    expect(secretsCli(['rotate-master-key', '--bogus'], env).code).to.equal(2);
    const short = secretsCli(['rotate-master-key', '--new-key-stdin'], env, 'c2hvcnQ=');
    expect(short.code).to.equal(2);
    expect(short.stderr).to.match(/base64 of 32 bytes/);
  });
});
