import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { instanceLogFile } from '#shared/platform/dataPaths.ts';
import { commitAndPush, createBareRepo, type BareRepo } from '#test/support/bareRepo.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { writeWheel } from '#test/support/wheel.ts';

/** A repository holding `acme_dep`, which needs the Python package forjatestdep, and `requirements` at its root when given. */
async function dependentRepo(requirements?: string): Promise<BareRepo> {
  const repo = await createBareRepo('pydeps');
  await commitAndPush(repo, 'main', 'add acme_dep', async (work) => {
    await mkdir(join(work, 'acme_dep'));
    await writeFile(join(work, 'acme_dep', '__init__.py'), '');
    await writeFile(join(work, 'acme_dep', '__manifest__.py'), "{'name': 'Acme', 'depends': ['base'], 'external_dependencies': {'python': ['forjatestdep']}}\n");
    if (requirements !== undefined) await writeFile(join(work, 'requirements.txt'), requirements);
  });
  return repo;
}

/** Issue 25: a module's Python dependency, missing and then installed from the repository's requirements.txt (a local wheel, no network). */
describe("an instance's Python requirements on the process runtime", function () {
  this.timeout(240_000);
  let platform: TestPlatform;
  let client: ReturnType<typeof instanceClient>;

  before(async () => {
    const wheels = runDir('wheels');
    writeWheel(wheels, 'forjatestdep', '1.0');
    const adminUrl = (await testCluster()).urlFor('postgres');
    platform = await startTestPlatform([
      executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: adminUrl, FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h', FORJA_PIP_FIND_LINKS: wheels }),
    ]);
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
  });
  after(async () => {
    for (const row of (await (await client.call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>) await client.act(row.slug, 'stop').catch(() => undefined);
    await platform?.stop();
  });

  it('fails install_modules naming the package when the repository does not ask for it', async () => {
    const created = await client.create({ name: 'nodep', project: 'Python', erp_version: '17.0', modules: ['acme_dep'], git_repo: (await dependentRepo()).url });
    const failed = await client.settled(created.slug, 'failed');
    expect(failed.job.steps.find((step) => step.step === 'install_modules')).to.include({ state: 'failed' });
    const log = await readFile(instanceLogFile(platform.config.FORJA_DATA_DIR, created.slug, 'erp'), 'utf8');
    expect(log).to.include(`Unable to install module "acme_dep" because an external dependency is not met: External dependency 'forjatestdep' not installed`);
  });

  it('installs it from requirements.txt and the wheel folder, and runs', async () => {
    const created = await client.create({ name: 'withdep', project: 'Python', erp_version: '17.0', modules: ['acme_dep'], git_repo: (await dependentRepo('forjatestdep\n')).url });
    const running = await client.settled(created.slug, 'running');
    expect(running.last_error).to.equal(null);
    const log = await readFile(instanceLogFile(platform.config.FORJA_DATA_DIR, created.slug, 'erp'), 'utf8');
    expect(log).to.include('Successfully installed forjatestdep-1.0').and.include('module acme_dep: installed');
  });

  it('fails the build naming a requirement pip cannot find, with pip’s message', async () => {
    const created = await client.create({ name: 'baddep', project: 'Python', erp_version: '17.0', modules: ['acme_dep'], git_repo: (await dependentRepo('forja-no-such-package\n')).url });
    const failed = await client.settled(created.slug, 'failed');
    expect(failed.last_error).to.match(/^build: pip could not install forja-no-such-package \(from requirements\.txt\):\n/);
    expect(failed.last_error).to.include('No matching distribution found for forja-no-such-package');
  });
});
