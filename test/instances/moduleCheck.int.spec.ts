import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { STANDIN_IMAGE } from '#services/executor/runtime/docker/erpImage.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { commitAndPush, createBareRepo, type BareRepo } from '#test/support/bareRepo.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testEngine } from '#test/support/podman.ts';
import { testCluster } from '#test/support/postgres.ts';
import { testStandinImage } from '#test/support/standinImage.ts';

/** A repository holding one addon, `acme_addon`, at its top level. */
async function addonRepo(): Promise<BareRepo> {
  const repo = await createBareRepo('addons');
  await commitAndPush(repo, 'main', 'add acme_addon', async (work) => {
    await mkdir(join(work, 'acme_addon'));
    // Both files: a folder without __init__.py is no module to the ERP's addons-path check (odoo/tools/config.py).
    await writeFile(join(work, 'acme_addon', '__init__.py'), '');
    await writeFile(join(work, 'acme_addon', '__manifest__.py'), "{'name': 'Acme addon', 'depends': ['sale']}\n");
  });
  return repo;
}

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

/** The executor checks the ERP's database after installing: a module the ERP ignored fails the instance. */
describe('requested modules on the process runtime', function () {
  this.timeout(120_000);
  let platform: TestPlatform;
  let client: ReturnType<typeof instanceClient>;
  let repo: BareRepo;

  before(async () => {
    repo = await addonRepo();
    const adminUrl = (await testCluster()).urlFor('postgres');
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: adminUrl, FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' })]);
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
  });
  after(async () => {
    // Servers outlive the executor by design: stop what the tests left running.
    for (const row of (await (await client.call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>) await client.act(row.slug, 'stop').catch(() => undefined);
    await platform?.stop();
  });

  it('fails install_modules naming a module that exists nowhere and where it was looked for', async () => {
    const created = await client.create({ name: 'typo', project: 'Modules', erp_version: '17.0', modules: ['sale', 'no_such_module'], git_repo: repo.url });
    const failed = await client.settled(created.slug, 'failed');
    const src = join(instanceDir(platform.config.FORJA_DATA_DIR, created.slug), 'src');
    expect(failed.last_error).to.equal(`install_modules: modules not installed: no_such_module (not found in the addons path: ${STANDIN_STANDARD_ADDONS}, ${src})`);
    const step = failed.job.steps.find((candidate) => candidate.step === 'install_modules');
    expect(step).to.include({ state: 'failed' });
    expect(await readFile(instanceLogFile(platform.config.FORJA_DATA_DIR, created.slug, 'erp'), 'utf8')).to.include('odoo.modules.loading: invalid module names, ignored: no_such_module');
    expect(await installedModules(created.slug), 'the ERP ignored the unknown module and installed the rest').to.deep.equal(['base', 'sale']);
  });

  it('installs an addon of the repository and runs', async () => {
    const created = await client.create({ name: 'addon', project: 'Modules', erp_version: '17.0', modules: ['sale', 'acme_addon'], git_repo: repo.url });
    const running = await client.settled(created.slug, 'running');
    expect(running.last_error).to.equal(null);
    expect(await installedModules(created.slug)).to.deep.equal(['acme_addon', 'base', 'sale']);
  });
});

/** In a container the code is mounted where the official image looks for extra addons; the stand-in image looks there too. */
describe('requested modules on the docker runtime', function () {
  this.timeout(180_000);
  let platform: TestPlatform | undefined;
  let client: ReturnType<typeof instanceClient>;
  let repo: BareRepo;

  before(async function () {
    const engine = await testEngine();
    if ('skip' in engine) {
      console.log(`      (skipped: ${engine.skip})`);
      this.skip();
    }
    repo = await addonRepo();
    await testStandinImage(engine.docker, '17.0');
    platform = await startTestPlatform([
      executorStarter({
        FORJA_RUNTIME: 'docker',
        FORJA_DOCKER_SOCKET: engine.socketPath,
        FORJA_DOCKER_IMAGE: `${STANDIN_IMAGE}:{version}`,
        FORJA_DOCKER_NETWORK_MODE: 'host',
        FORJA_ERP_DATABASE_URL: (await testCluster()).urlFor('postgres'),
        FORJA_HEALTH_TIMEOUT_S: 60,
      }),
    ]);
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
  });
  after(async () => {
    if (platform) for (const row of (await (await client.call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>) await client.act(row.slug, 'destroy').catch(() => undefined);
    await platform?.stop();
  });

  it('installs an addon of the repository in a container and runs', async () => {
    const created = await client.create({ name: 'boxed', project: 'Docker Modules', erp_version: '17.0', modules: ['acme_addon'], git_repo: repo.url });
    await client.settled(created.slug, 'running', 120_000);
    expect(await installedModules(created.slug)).to.deep.equal(['acme_addon', 'base']);
  });
});
