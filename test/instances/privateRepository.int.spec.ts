import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { instanceDir } from '#shared/platform/dataPaths.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { sshKeySecrets } from '#shared/secrets/sshKeySecrets.ts';
import { instanceClient } from '#test/support/instances.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { startSshGitServer, type SshGitServer } from '#test/support/sshGitServer.ts';

interface KeyOut {
  id: number;
  public_key: string;
  fingerprint: string;
}
interface VerifyOut {
  ok: boolean;
  repositories: Array<{ url: string; path: string | null; status: string; head: string | null; message: string }>;
}

/** Every file below `dir`, recursively (the data folder: logs, checkouts, uploads, the private cluster's files). */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesBelow(path);
    return entry.isFile() ? [path] : [];
  });
}

/**
 * The operator's path of issue 14 through the API, against a real sshd on 127.0.0.1: a generated
 * key is authorized on the git host, given to a project, the repository and its private submodule
 * verify, and an instance builds from the private ssh:// repository and runs.
 */
describe('private repositories over SSH: keyring key → project → verify → instance running', function () {
  this.timeout(180_000);
  let sshd: SshGitServer;
  let platform: TestPlatform;
  let client: ReturnType<typeof instanceClient>;
  let erp: { url: string; head: string };
  let key: KeyOut;

  const call = (path: string, init: RequestInit & { as?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', basic(init.as ?? 'admin@example.com'));
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${platform.urls.controlPlane}${path}`, { ...init, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  };
  const ok = async <T>(response: Promise<Response>, status = 200): Promise<T> => {
    const answered = await response;
    const text = await answered.text();
    expect(answered.status, text).to.equal(status);
    return JSON.parse(text) as T;
  };
  const project = async (name: string, gitRepo: string, keyIds: number[]) => {
    const { slug } = await ok<{ slug: string }>(call('/api/v1/projects', { method: 'POST', json: { name } }), 201);
    await ok(call(`/api/v1/projects/${slug}/repository`, { method: 'PUT', json: { git_repo: gitRepo } }));
    for (const keyId of keyIds) await ok(call(`/api/v1/projects/${slug}/ssh-keys`, { method: 'POST', json: { key_id: keyId }, as: 'dev@example.com' }));
    return slug;
  };
  const verify = (slug: string) => ok<VerifyOut>(call(`/api/v1/projects/${slug}/repo/verify`, { method: 'POST', as: 'dev@example.com' }));

  before(async () => {
    sshd = await startSshGitServer();
    await sshd.createRepository('addons-private', { files: { 'addons/README.md': 'private addons\n' } });
    await sshd.createRepository('addons-foreign', { files: { 'README.md': 'another customer\n' } });
    erp = await sshd.createRepository('erp', { files: { 'README.md': 'customer ERP\n' }, submodules: [{ path: 'addons/private', url: sshd.url('addons-private') }] });
    await sshd.createRepository('erp-foreign', { files: { 'README.md': 'x\n' }, submodules: [{ path: 'addons/foreign', url: sshd.url('addons-foreign') }] });
    const adminUrl = (await testCluster()).urlFor('postgres');
    platform = await startTestPlatform(
      [executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: adminUrl, FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' })],
      { FORJA_GIT_ALLOW_HOSTS: '127.0.0.1' },
    );
    await platform.createUser('admin@example.com', 'admin');
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
    key = await ok<KeyOut>(call('/api/v1/ssh-keys', { method: 'POST', json: { name: 'acme deploy', generate: true } }), 201);
    // What an operator pastes into the git host: the key may read the ERP and its addons, nothing else.
    await sshd.authorize(key.public_key, { repos: ['erp', 'addons-private', 'erp-foreign'] });
  });
  after(async () => {
    for (const row of (await (await client.call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>) await client.act(row.slug, 'stop').catch(() => undefined);
    await platform?.stop();
    await sshd?.stop();
  });

  it('verifies the repository and its private submodule with the project key, pinning the host key at first contact', async () => {
    const slug = await project('Acme SSH', sshd.url('erp'), [key.id]);
    const result = await verify(slug);
    expect(result.ok, JSON.stringify(result)).to.equal(true);
    expect(result.repositories.map((repo) => [repo.path, repo.status])).to.deep.equal([
      [null, 'ok'],
      ['addons/private', 'ok'],
    ]);
    expect(result.repositories[0]?.head).to.equal(erp.head);
    const keys = await ok<{ host_keys: Array<{ host: string; port: number; keys: Array<{ fingerprint: string }> }> }>(call(`/api/v1/projects/${slug}/ssh-keys`));
    expect(keys.host_keys).to.have.length(1);
    expect(keys.host_keys[0]).to.include({ host: '127.0.0.1', port: sshd.port });
    expect(keys.host_keys[0]?.keys.map((hostKey) => hostKey.fingerprint)).to.include(await sshd.hostKeyFingerprint());
  });

  it('builds an instance from the private ssh:// repository, submodule included, and it runs', async () => {
    const created = await client.create({ name: 'dev', project: 'acme-ssh', erp_version: '17.0', branch: 'main' });
    const running = await client.settled(created.slug, 'running');
    expect(running.commit).to.equal(erp.head);
    const source = join(instanceDir(platform.config.FORJA_DATA_DIR, created.slug), 'src');
    expect(readFileSync(join(source, 'addons', 'private', 'addons', 'README.md'), 'utf8')).to.equal('private addons\n');
  });

  it('names the submodule the key cannot read', async () => {
    const slug = await project('Acme Foreign', sshd.url('erp-foreign'), [key.id]);
    const result = await verify(slug);
    expect(result.ok).to.equal(false);
    const [main, foreign] = result.repositories;
    expect(main).to.include({ path: null, status: 'ok' });
    expect(foreign).to.include({ path: 'addons/foreign', url: sshd.url('addons-foreign'), status: 'not_found' });
    expect(foreign?.message).to.match(/deploy key|access/);
  });

  it('fails a build with a key the host does not know at resolve_source, saying what to do', async () => {
    const stranger = await ok<KeyOut>(call('/api/v1/ssh-keys', { method: 'POST', json: { name: 'unknown to the host', generate: true } }), 201);
    const slug = await project('Acme Stranger', sshd.url('erp'), [stranger.id]);
    expect((await verify(slug)).repositories[0]).to.include({ status: 'auth_failed' });
    const created = await client.create({ name: 'dev', project: slug, erp_version: '17.0', branch: 'main' });
    const failed = await client.settled(created.slug, 'failed');
    expect(failed.last_error).to.match(/^resolve_source: .*refused the project's SSH keys/);
    expect(failed.job.steps.find((step) => step.step === 'resolve_source')?.attempts, 'an authentication failure is not retried').to.equal(1);
  });

  it('never writes the private key into an event, a log file, a checkout or an answer', async () => {
    const [opened] = await sshKeySecrets(platform.infra.db, createSecretBox(resolvePlatformSecrets(platform.config).masterKey)).open([key.id]);
    const body = opened!.privateKey.split('\n').filter((line) => line && !line.startsWith('-----'));
    expect(body.join('').length).to.be.greaterThan(100);
    const needles = body.filter((line) => line.length >= 40);
    const events = JSON.stringify(await platform.infra.store.readAll({ after: 0, limit: 100_000 }));
    for (const needle of needles) expect(events.includes(needle), 'in the event store').to.equal(false);
    let searched = 0;
    for (const file of filesBelow(platform.config.FORJA_DATA_DIR)) {
      if (statSync(file).size > 64 * 1024 * 1024) continue;
      const text = readFileSync(file).toString('latin1');
      searched += 1;
      for (const needle of needles) expect(text.includes(needle), file).to.equal(false);
    }
    expect(searched).to.be.greaterThan(3);
    const answers = [await (await call('/api/v1/ssh-keys')).text(), await (await call('/api/v1/projects/acme-ssh/ssh-keys')).text()];
    for (const needle of needles) expect(answers.join('\n').includes(needle)).to.equal(false);
    expect(existsSync(join(platform.config.FORJA_DATA_DIR, 'local-secrets.json')) || Boolean(platform.config.FORJA_MASTER_KEY)).to.equal(true);
  });

  it('refuses a changed host key with both fingerprints, until an admin forgets the pinned one', async () => {
    const pinned = await sshd.hostKeyFingerprint();
    await sshd.regenerateHostKey();
    const presented = await sshd.hostKeyFingerprint();
    const refused = await verify('acme-ssh');
    expect(refused.ok).to.equal(false);
    expect(refused.repositories[0]).to.include({ status: 'host_key_changed' });
    expect(refused.repositories[0]?.message).to.include(pinned).and.to.include(presented);

    const rebuilt = await client.act('acme-ssh-dev', 'rebuild');
    const failed = await client.settled(rebuilt.slug, 'failed');
    expect(failed.last_error).to.match(/^resolve_source: the SSH host key of \[127\.0\.0\.1\]:\d+ changed/);

    expect((await call('/api/v1/projects/acme-ssh/host-keys/forget', { method: 'POST', json: { host: '127.0.0.1', port: sshd.port }, as: 'dev@example.com' })).status).to.equal(403);
    await ok(call('/api/v1/projects/acme-ssh/host-keys/forget', { method: 'POST', json: { host: '127.0.0.1', port: sshd.port } }));
    expect((await verify('acme-ssh')).ok).to.equal(true);
  });
});
