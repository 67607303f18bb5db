import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import type { ExecutorSettings } from '#services/executor/executor.settings.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { ADDONS_REPO_MODULES, addonsRepo, writeModule } from '#test/support/addonsRepo.ts';
import type { BareRepo } from '#test/support/bareRepo.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';

async function installedModules(slug: string): Promise<string[]> {
  const db = new pg.Client({ connectionString: (await testCluster()).urlFor(databaseName(slug)) });
  await db.connect();
  try {
    const { rows } = await db.query<{ name: string }>("select name from ir_module_module where state = 'installed' order by name");
    return rows.map((row) => row.name);
  } finally {
    await db.end();
  }
}

async function processPlatform(overrides: Partial<ExecutorSettings>): Promise<{ platform: TestPlatform; client: ReturnType<typeof instanceClient> }> {
  const adminUrl = (await testCluster()).urlFor('postgres');
  const platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: adminUrl, FORJA_HEALTH_TIMEOUT_S: 30, ...overrides })]);
  await platform.createUser('dev@example.com', 'developer');
  return { platform, client: instanceClient(platform.urls.controlPlane!, 'dev@example.com') };
}

async function stopAll(platform: TestPlatform | undefined, client: ReturnType<typeof instanceClient> | undefined): Promise<void> {
  // Servers outlive the executor by design: stop what the tests left running.
  if (platform && client) for (const row of (await (await client.call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>) await client.act(row.slug, 'stop').catch(() => undefined);
  await platform?.stop();
}

/** Issue 25: a hosting team's repository (modules at its root, in addons/, in a submodule) installs whole, and enterprise needs its folder. */
describe('the addons path of an instance (process runtime, stand-in)', function () {
  this.timeout(180_000);
  let platform: TestPlatform;
  let client: ReturnType<typeof instanceClient>;
  let repo: BareRepo;
  let enterprise: string;

  before(async () => {
    ({ repo } = await addonsRepo());
    enterprise = runDir('enterprise');
    await writeModule(join(enterprise, '17.0', 'web_studio'), 'Studio (enterprise only)');
    ({ platform, client } = await processPlatform({ FORJA_ERP_ENTERPRISE_ADDONS: `${enterprise}/{version}` }));
  });
  after(() => stopAll(platform, client));

  it('installs the modules at the root, in addons/ and in the submodule’s nested folder, and logs the path one folder a line', async () => {
    const modules = Object.values(ADDONS_REPO_MODULES);
    const created = await client.create({ name: 'layout', project: 'Addons Co', erp_version: '17.0', modules, git_repo: repo.url });
    const running = await client.settled(created.slug, 'running', 120_000);
    expect(running.last_error).to.equal(null);
    expect(await installedModules(created.slug)).to.include.members(['base', ...modules]);
    const src = join(instanceDir(platform.config.FORJA_DATA_DIR, created.slug), 'src');
    const log = await readFile(instanceLogFile(platform.config.FORJA_DATA_DIR, created.slug, 'erp'), 'utf8');
    const lines = log.split('\n').map((line) => line.replace(/^\S+ forja: /, ''));
    const at = lines.indexOf('addons path (4 folders, in order):');
    expect(at, log).to.be.above(-1);
    expect(lines.slice(at + 1, at + 5)).to.deep.equal([STANDIN_STANDARD_ADDONS, src, join(src, 'addons'), join(src, 'vendor/oca/web_tools')].map((folder) => `  ${folder}`));
  });

  it('puts the enterprise folder of the version on an enterprise instance’s path: its module installs', async () => {
    const created = await client.create({ name: 'studio', project: 'Addons Co', erp_version: '17.0', edition: 'enterprise', modules: ['web_studio'] });
    await client.settled(created.slug, 'running', 120_000);
    expect(await installedModules(created.slug)).to.include('web_studio');
  });
});

describe('an enterprise instance without FORJA_ERP_ENTERPRISE_ADDONS', function () {
  this.timeout(120_000);
  let platform: TestPlatform;
  let client: ReturnType<typeof instanceClient>;

  before(async () => ({ platform, client } = await processPlatform({})));
  after(() => stopAll(platform, client));

  it('fails its build naming the setting and the version', async () => {
    const created = await client.create({ name: 'no-enterprise', project: 'Addons Co', erp_version: '18.0', edition: 'enterprise', modules: [] });
    const failed = await client.settled(created.slug, 'failed');
    expect(failed.last_error).to.equal(
      'build: the enterprise edition needs the enterprise addons of ERP version 18.0: set FORJA_ERP_ENTERPRISE_ADDONS to their folder ({version} is replaced, e.g. /opt/odoo/{version}/enterprise)',
    );
    expect(failed.job.steps.find((step) => step.step === 'build')).to.include({ state: 'failed' });
  });
});
