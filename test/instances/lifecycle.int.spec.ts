import { expect } from 'chai';
import pg from 'pg';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { getProject } from '#projections/projects/projectDetail.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { startIdleSweep } from '#services/executor/idleSweep.ts';
import { silentLogger } from '#shared/log.ts';
import { instanceDir, instanceLogFile, uploadDir } from '#shared/platform/dataPaths.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { webhookPath } from '#shared/auth/webhookToken.ts';
import { createBareRepo, git, installPostReceiveHook, pushCommit, type BareRepo } from '#test/support/bareRepo.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';

/** Instances really come up on the process runtime with the ERP stand-in, and every action happens. */
describe('instance lifecycle on the process runtime', function () {
  this.timeout(120_000);
  let platform: TestPlatform;
  let client: ReturnType<typeof instanceClient>;
  let adminUrl: string;
  let repo: BareRepo;

  const installedModules = async (slug: string): Promise<string[]> => {
    const db = new pg.Client({ connectionString: (await testCluster()).urlFor(databaseName(slug)) });
    await db.connect();
    try {
      const { rows } = await db.query<{ name: string }>("select name from ir_module_module where state = 'installed' order by name");
      return rows.map((row) => row.name);
    } finally {
      await db.end();
    }
  };
  const databaseExists = async (slug: string): Promise<boolean> => {
    const db = new pg.Client({ connectionString: adminUrl });
    await db.connect();
    try {
      return (await db.query('select 1 from pg_database where datname = $1', [databaseName(slug)])).rowCount === 1;
    } finally {
      await db.end();
    }
  };
  const answers = async (url: string | null) => (url ? fetch(`${url}/web/health`).then((res) => res.status === 200, () => false) : false);

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
    repo = await createBareRepo('acme', ['feature/x']);
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: adminUrl, FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' })]);
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
  });
  after(async () => {
    // Servers outlive the executor by design: stop what the tests left running.
    for (const row of (await (await client.call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>) await client.act(row.slug, 'stop').catch(() => undefined);
    await platform?.stop();
  });

  it('provisions from the repository: code, database, modules installed, ERP answering', async () => {
    const created = await client.create({ name: 'dev', project: 'Acme', erp_version: '17.0', modules: ['sale', 'stock'], git_repo: repo.url, branch: 'main' });
    const running = await client.settled(created.slug, 'running');
    expect(running.job.steps.map((step) => [step.step, step.state, step.attempts])).to.deep.equal(
      ['resolve_source', 'fetch_code', 'database', 'build', 'install_modules', 'start', 'health_check'].map((step) => [step, 'completed', 1]),
    );
    expect(running).to.include({ runtime: 'process', standin: true, commit: await git(repo.dir, 'rev-parse', 'main') });
    expect(await answers(running.url)).to.equal(true);
    expect(await installedModules(created.slug)).to.deep.equal(['base', 'sale', 'stock']);
    expect(existsSync(join(instanceDir(platform.config.FORJA_DATA_DIR, created.slug), 'src', '.git'))).to.equal(true);
  });

  it('stops, starts, restarts and rebuilds', async () => {
    const slug = 'acme-dev';
    await client.act(slug, 'stop');
    const stopped = await client.settled(slug, 'stopped');
    expect(stopped.url).to.equal(null);
    await client.act(slug, 'start');
    const started = await client.settled(slug, 'running');
    expect(await answers(started.url)).to.equal(true);
    await client.act(slug, 'restart');
    expect(await answers((await client.settled(slug, 'running')).url)).to.equal(true);
    const commit = await pushCommit(repo, 'main', 'second');
    await client.act(slug, 'rebuild');
    const rebuilt = await client.settled(slug, 'running');
    expect(rebuilt.commit).to.equal(commit);
    expect(rebuilt.job.steps.map((step) => step.step)).to.deep.equal(['resolve_source', 'fetch_code', 'build', 'stop', 'update_modules', 'start', 'health_check']);
  });

  it('marks the instance failed when its ERP dies, and restart brings it back', async () => {
    const slug = 'acme-dev';
    const record = JSON.parse(readFileSync(join(instanceDir(platform.config.FORJA_DATA_DIR, slug), 'erp-server.pid'), 'utf8')) as { pid: number };
    process.kill(record.pid, 'SIGKILL');
    await waitUntil(async () => (await client.get(slug)).status === 'failed', 'the dead ERP to be reported', 15_000);
    expect((await client.get(slug)).last_error).to.equal('the ERP process exited');
    await client.act(slug, 'restart');
    expect(await answers((await client.settled(slug, 'running')).url)).to.equal(true);
  });

  it('puts an idle development instance to sleep, and start wakes it', async () => {
    const slug = 'acme-dev';
    const sweep = startIdleSweep({ store: platform.infra.store, readModel: platform.infra.db.withSchema('read_model'), sleepAfterMs: 1, logger: silentLogger, everyMs: 3_600_000 });
    try {
      expect(await sweep.sweep()).to.deep.equal([slug]);
    } finally {
      sweep.stop();
    }
    await waitUntil(async () => (await client.get(slug)).job.kind === 'sleep', 'the sleep job to show', 10_000);
    expect((await client.settled(slug, 'sleeping')).url).to.equal(null);
    await client.act(slug, 'start');
    expect(await answers((await client.settled(slug, 'running')).url)).to.equal(true);
  });

  it('creates an instance from an uploaded plain SQL dump', async () => {
    const uploadId = randomUUID();
    const dir = uploadDir(platform.config.FORJA_DATA_DIR, uploadId);
    mkdirSync(dir, { recursive: true });
    const source = (await testCluster()).urlFor(databaseName('acme-dev'));
    execFileSync('pg_dump', ['--no-owner', '--no-acl', '-f', join(dir, 'dump'), source]);
    const res = await fetch(`${platform.urls.controlPlane}/internal/instances`, {
      method: 'POST',
      headers: { authorization: `Bearer ${resolvePlatformSecrets(platform.config).serviceToken}`, 'content-type': 'application/json', 'x-forja-actor': await userId(platform, 'dev@example.com') },
      body: JSON.stringify({ name: 'restored', project: 'acme', erp_version: '17.0', upload: { upload_id: uploadId, dump_format: 'plain', has_filestore: false } }),
    });
    expect(res.status).to.equal(201);
    await client.settled('acme-restored', 'running');
    expect(await installedModules('acme-restored')).to.deep.equal(['base', 'sale', 'stock']);
    expect(readFileSync(instanceLogFile(platform.config.FORJA_DATA_DIR, 'acme-restored', 'db'), 'utf8')).to.match(/neutralized/);
  });

  it('rebuilds exactly the instances on the branch a real git push names', async () => {
    const feature = await client.create({ name: 'feature', project: 'acme', erp_version: '17.0', git_repo: repo.url, branch: 'feature/x' });
    await client.settled(feature.slug, 'running');
    const featureJob = (await client.get(feature.slug)).job.id;
    const devJob = (await client.get('acme-dev')).job.id;
    const { webhookSecret } = resolvePlatformSecrets(platform.config);
    const acmeNonce = (await getProject(platform.infra.db.withSchema('read_model'), 'acme'))?.webhook_nonce ?? null;
    await installPostReceiveHook(repo, `${platform.urls.controlPlane}${webhookPath(webhookSecret, 'acme', acmeNonce)}`);
    const commit = await pushCommit(repo, 'main', 'third');
    await waitUntil(async () => (await client.get('acme-dev')).job.id !== devJob, 'the push to start a rebuild', 10_000);
    const rebuilt = await client.settled('acme-dev', 'running');
    expect(rebuilt).to.include({ commit });
    expect(rebuilt.job.kind).to.equal('rebuild');
    expect((await client.get(feature.slug)).job.id, 'the feature/x instance was left alone').to.equal(featureJob);
    await client.act(feature.slug, 'stop');
  });

  it('remembers pushes that arrive during a job: one rebuild to the branch head follows it', async () => {
    // Commits land first, with no hook; then two deliveries arrive right after a restart was asked
    // for, as a git host's would during it (two real pushes take longer than a restart here).
    rmSync(join(repo.dir, 'hooks', 'post-receive'), { force: true });
    const first = await pushCommit(repo, 'main', 'fourth');
    const head = await pushCommit(repo, 'main', 'fifth');
    const { webhookSecret } = resolvePlatformSecrets(platform.config);
    const acmeNonce = (await getProject(platform.infra.db.withSchema('read_model'), 'acme'))?.webhook_nonce ?? null;
    const deliver = (after: string) =>
      fetch(`${platform.urls.controlPlane}${webhookPath(webhookSecret, 'acme', acmeNonce)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
        body: JSON.stringify({ ref: 'refs/heads/main', after }),
      }).then((res) => res.json() as Promise<{ deferred: string[]; rebuilt: string[] }>);
    const before = (await platform.infra.store.readStream('instance-acme-dev')).events.length;
    await client.act('acme-dev', 'restart');
    const delivered = [await deliver(first), await deliver(head)];
    // (acme-restored, also on main, answers for itself: rebuilt by the first, deferred by the second.)
    for (const answer of delivered) expect(answer.deferred, JSON.stringify(answer)).to.include('acme-dev');
    await waitUntil(async () => (await client.get('acme-dev')).branch_head === head, 'the pushed head to show', 10_000);
    expect(await client.get('acme-dev')).to.include({ branch_head: head, behind: true, rebuild_pending: true });
    await waitUntil(async () => {
      const now = await client.get('acme-dev');
      return now.commit === head && now.status === 'running' && !now.job.active;
    }, 'the deferred rebuild to bring acme-dev to the branch head', 60_000);
    const after = await client.get('acme-dev');
    expect(after).to.include({ behind: false, rebuild_pending: false, last_error: null });
    expect(await answers(after.url)).to.equal(true);
    const events = (await platform.infra.store.readStream('instance-acme-dev')).events.slice(before);
    expect(events.filter((event) => event.type === 'InstanceRebuildDeferred')).to.have.length(2);
    const jobs = events.filter((event) => event.type === 'InstanceActionRequested').map((event) => `${(event.data as { action: string }).action}/${(event.data as { reason: string }).reason}`);
    expect(jobs, 'one restart, then one rebuild for both pushes').to.deep.equal(['restart/user', 'rebuild/push']);
  });

  it('clones another instance’s database into a new one', async () => {
    const clone = await client.create({ name: 'copy', project: 'acme', erp_version: '17.0', clone_from: 'acme-dev' });
    await client.settled(clone.slug, 'running');
    expect(await installedModules(clone.slug)).to.deep.equal(['base', 'sale', 'stock']);
  });

  it('fails with the step and its error when the branch does not exist', async () => {
    const created = await client.create({ name: 'broken', project: 'acme', erp_version: '17.0', git_repo: repo.url, branch: 'nope' });
    let failed;
    try {
      await client.settled(created.slug, 'running');
    } catch {
      failed = await client.get(created.slug);
    }
    expect(failed?.status).to.equal('failed');
    expect(failed?.last_error).to.match(/^resolve_source: .*nope/);
    expect(failed?.job.steps[0]).to.include({ step: 'resolve_source', state: 'failed' });
  });

  it('destroys: server, database and files gone, record kept as destroyed; purge removes the record', async () => {
    const slug = 'acme-copy';
    await client.act(slug, 'destroy');
    const destroyed = await client.settled(slug, 'destroyed');
    expect(destroyed.url).to.equal(null);
    expect(await databaseExists(slug)).to.equal(false);
    expect(existsSync(join(instanceDir(platform.config.FORJA_DATA_DIR, slug), 'filestore'))).to.equal(false);
    const { serviceToken } = resolvePlatformSecrets(platform.config);
    await platform.createUser('admin@example.com', 'admin');
    const purge = await fetch(`${platform.urls.controlPlane}/internal/instances/purge`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serviceToken}`, 'content-type': 'application/json', 'x-forja-actor': await userId(platform, 'admin@example.com') },
      body: '{}',
    });
    expect(purge.status).to.equal(200);
    expect(((await purge.json()) as { purged: string[] }).purged).to.include(slug);
    expect((await client.call(`/api/v1/instances/${slug}`)).status).to.equal(404);
    await waitUntil(async () => !existsSync(instanceDir(platform.config.FORJA_DATA_DIR, slug)), 'the executor to purge the instance folder', 10_000);
  });
});

describe('deleting a project', function () {
  this.timeout(60_000);
  it('destroys its instances', async () => {
    const platform = await startTestPlatform();
    try {
      await platform.createUser('admin@example.com', 'admin');
      const client = instanceClient(platform.urls.controlPlane!, 'admin@example.com');
      const instance = await client.create({ name: 'one', project: 'Doomed', erp_version: '17.0' });
      const res = await fetch(`${platform.urls.controlPlane}/internal/projects/doomed/delete`, {
        method: 'POST',
        headers: { authorization: `Bearer ${resolvePlatformSecrets(platform.config).serviceToken}`, 'content-type': 'application/json', 'x-forja-actor': await userId(platform, 'admin@example.com') },
        body: JSON.stringify({ confirm_name: 'Doomed' }),
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ slug: 'doomed', deleted: true, destroyed: [instance.slug] });
      expect((await client.get(instance.slug)).job).to.include({ kind: 'destroy', active: true });
    } finally {
      await platform.stop();
    }
  });
});

async function userId(platform: TestPlatform, email: string): Promise<string> {
  const row = await platform.infra.db.withSchema('read_model').selectFrom('users').select('user_id').where('email', '=', email).executeTakeFirstOrThrow();
  return row.user_id as string;
}
