import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instanceStream, type InstanceSettings } from '#services/instances/domain/instance.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { runSteps, getRun } from '#projections/erpMigrations/migrationRuns.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { servedCustomerDump } from '#test/support/customerDump.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';
import { workingInstanceSlug } from '#shared/instanceDatabase/reservedNames.ts';

interface Artifact {
  id: number;
  kind: string;
  name: string;
  sha256: string;
}

/**
 * An instance made from a real run's dump: a community 16.0 → 17.0 migration runs on the process
 * runtime with the ERP stand-in, then an instance is created from its `dump` artifact and runs.
 */
describe('an instance from a migration run’s dump (process runtime, ERP stand-in)', function () {
  this.timeout(300_000);
  let platform: TestPlatform;
  let cluster: Awaited<ReturnType<typeof testCluster>>;
  let slug: string;
  let artifacts: Artifact[];

  const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${platform.urls.controlPlane}${path}`, {
      ...init,
      headers: { authorization: basic('dev@example.com'), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  const instance = async (of: string) => (await (await call(`/api/v1/instances/${of}`)).json()) as { status: string; project: string; erp_version: string; edition: string; url: string; last_error: string | null };
  const rows = async <Row extends object>(database: string, sql: string) => {
    const client = new pg.Client(cluster.urlFor(database));
    await client.connect();
    try {
      return (await client.query<Row>(sql)).rows;
    } finally {
      await client.end();
    }
  };

  before(async () => {
    cluster = await testCluster();
    const { url } = await servedCustomerDump(cluster);
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 60 })], { FORJA_PULL_ALLOW_HOSTS: '127.0.0.1' });
    await platform.createUser('dev@example.com', 'developer');
    const created = await call('/api/v1/migrations', { method: 'POST', json: { name: 'Backup source', origin: '16.0', destination: '17.0', pull_url: url } });
    expect(created.status, await created.clone().text()).to.equal(201);
    slug = ((await created.json()) as { slug: string }).slug;
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    await waitUntil(
      async () => {
        const run = (await (await call(`/api/v1/migrations/${slug}/runs/1`)).json()) as { status: string; error: string | null; artifacts: Artifact[] };
        if (run.status === 'failed') throw new Error(`the migration run failed: ${run.error}`);
        artifacts = run.artifacts;
        return run.status === 'succeeded';
      },
      'the migration run to succeed',
      240_000,
    );
  });
  after(async () => {
    // ERP servers outlive the executor by design: stop the instances the test started.
    if (platform) {
      const running = (await (await call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>;
      for (const { slug: one } of running) await call(`/api/v1/instances/${one}/action`, { method: 'POST', json: { action: 'stop' } });
      await waitUntil(async () => ((await (await call('/api/v1/instances?status_filter=running')).json()) as unknown[]).length === 0, 'the instances to stop', 30_000).catch(() => undefined);
    }
    await platform?.stop();
  });

  it('records the ERP version of the database in the backup and the dump', async () => {
    const readModel = platform.infra.db.withSchema('read_model');
    const steps = await runSteps(readModel, (await getRun(readModel, slug, 1))!.job_id);
    const versionOf = (id: string) => (steps.find((step) => step.step_id === id)?.facts as { artifact?: { erpVersion?: string } }).artifact?.erpVersion;
    expect([versionOf('backup_origin'), versionOf('dump_result')]).to.deep.equal(['16.0', '17.0']);
  });

  it('puts the working instance in the migrations project, which exists', async () => {
    expect((await instance(workingInstanceSlug(slug, 1))).project).to.equal('migrations');
    const project = await call('/api/v1/projects/migrations');
    expect(project.status).to.equal(200);
    expect(await project.json()).to.include({ slug: 'migrations', name: 'Migrations' });
  });

  it('runs an instance from the dump: every module on 17.0, neutralized, with the run’s filestore, the artifact untouched', async () => {
    const dump = artifacts.find((artifact) => artifact.kind === 'dump')!;
    const file = join(platform.config.FORJA_DATA_DIR, 'migrations', slug, 'runs', '1', dump.name);
    const created = await call('/api/v1/instances', { method: 'POST', json: { name: 'Upgraded copy', project: 'Acme', stage: 'staging', erp_version: '17.0', from_backup: dump.id, from_migration: slug } });
    expect(created.status, await created.clone().text()).to.equal(201);
    const { slug: copy } = (await created.json()) as { slug: string };
    await waitUntil(
      async () => {
        const now = await instance(copy);
        if (now.status === 'failed') throw new Error(`the instance failed: ${now.last_error}`);
        return now.status === 'running';
      },
      'the instance from the dump to run',
      120_000,
    );
    const now = await instance(copy);
    expect(now).to.include({ erp_version: '17.0', edition: 'community', project: 'acme' });
    expect((await fetch(`${now.url}/web/health`)).status).to.equal(200);
    const modules = await rows<{ name: string; latest_version: string }>(databaseName(copy), "select name, latest_version from ir_module_module where state = 'installed' order by name");
    expect(modules.map((module) => module.name)).to.include.members(['base', 'sale', 'crm']);
    expect(modules.filter((module) => !module.latest_version.startsWith('17.0.')), 'every installed module on 17.0').to.deep.equal([]);
    const dbLog = readFileSync(join(platform.config.FORJA_DATA_DIR, 'instances', copy, 'logs', 'db.log'), 'utf8');
    expect(dbLog).to.match(/neutralized \(not production\)/);
    expect(dbLog).to.include(`extracting filestore archive ${join(platform.config.FORJA_DATA_DIR, 'migrations', slug, 'runs', '1', 'filestore_result.tar.gz')}`);
    expect(createHash('sha256').update(readFileSync(file)).digest('hex'), 'the dump is still the migration’s, unchanged').to.equal(dump.sha256);
  });

  it('fails the database step, saying so, when the artifact was deleted after the instance was requested', async () => {
    const settings: InstanceSettings = {
      slug: 'acme-gone-dump',
      name: 'Gone dump',
      project: 'acme',
      stage: 'development',
      erpVersion: '17.0',
      edition: 'community',
      modules: [],
      gitRepo: null,
      branch: 'main',
      source: { kind: 'artifact', artifactId: 1019, migration: slug, run: 1, artifactKind: 'dump', blobKey: `migrations/${slug}/runs/1/gone.dump`, filestoreKey: null },
    };
    const metadata = { correlationId: 't', causationId: 't', actor: 'system', at: new Date().toISOString() };
    await handleCommand(platform.infra.store, instanceDecider, instanceStream(settings.slug), { type: 'RequestInstance', settings, jobId: randomUUID() }, { metadata });
    await waitUntil(async () => (await call(`/api/v1/instances/${settings.slug}`)).status === 200 && (await instance(settings.slug)).status === 'failed', 'the instance to fail', 60_000);
    expect((await instance(settings.slug)).last_error).to.equal(`database: the migration's dump migrations/${slug}/runs/1/gone.dump is no longer stored: its migration was stopped or deleted`);
  });
});
