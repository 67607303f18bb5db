import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { writeModule } from '#test/support/addonsRepo.ts';
import { commitAndPush, createBareRepo, git } from '#test/support/bareRepo.ts';
import { serveCustomerDump, type RunBody } from '#test/support/migrationHarness.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { pdfToText } from './report/pdfTools.ts';
import { waitUntil } from '#test/support/wait.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
const STANDIN_UPGRADES = fileURLToPath(new URL('../../services/erp-standin/upgrades/', import.meta.url));

/**
 * Issue 26, item 1: a customer's 16.0 database with the project's own module (`acme_custom`, in
 * `addons/`) and a third-party one from a git submodule (`oca_widget`, one folder down in
 * `vendor/oca`) migrates to 17.0 only when the migration names where their 17.0 code lives.
 */
interface Readiness {
  run: number | null;
  hops: Array<{ destination: string; counts: Record<string, number>; modules: Array<{ module: string; found: string; where: string | null; openupgrade: string | null; verdict: string }> }>;
}
const byModule = (hop: Readiness['hops'][number]) => Object.fromEntries(hop.modules.map((module) => [module.module, module]));

describe('a migration with the customer\'s code per hop (process runtime, ERP stand-in)', function () {
  this.timeout(240_000);
  let platform: TestPlatform;
  let dumpUrl: string;
  let project: string;
  let customScript: string;
  let customScript18: string;
  let cluster: Awaited<ReturnType<typeof testCluster>>;

  before(async () => {
    cluster = await testCluster();
    const dir = runDir('migration-code');
    // The customer's repository: branch 16.0 and branch 17.0, each with the module in addons/ and the submodule.
    const oca = await createBareRepo('oca-web');
    await commitAndPush(oca, 'main', 'oca_widget', (work) => writeModule(join(work, 'web_tools', 'oca_widget'), 'OCA widget'));
    const repo = await createBareRepo('acme-erp');
    for (const branch of ['16.0', '17.0', '18.0']) {
      await commitAndPush(repo, branch, `the ${branch} code`, async (work) => {
        await writeModule(join(work, 'addons', 'acme_custom'), 'Acme custom', ['base', 'sale', 'oca_widget']);
        await git(work, 'submodule', 'add', '-q', oca.url, 'vendor/oca');
      });
    }
    // The customer's 16.0 database, made by the 16.0 stand-in with that code on its path.
    const code16 = join(dir, 'code16');
    await git('/', 'clone', '-q', '--recurse-submodules', '-b', '16.0', repo.url, code16);
    const source = `customer_code_${Date.now()}`;
    const parsed = new URL(cluster.url);
    const addonsPath = [STANDIN_STANDARD_ADDONS, join(code16, 'addons'), join(code16, 'vendor', 'oca', 'web_tools')].join(',');
    const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    const installed = spawnSync(STANDIN, ['-d', source, '--addons-path', addonsPath, '-i', 'sale,oca_widget,acme_custom', '--stop-after-init', ...connection], {
      encoding: 'utf8',
      env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' },
    });
    expect(installed.status, installed.stderr).to.equal(0);
    dumpUrl = await serveCustomerDump(cluster.urlFor(source), dir);
    // acme_custom's own 17.0 migration script: the resume test makes it fail once.
    const upgrades = join(dir, 'upgrades');
    cpSync(STANDIN_UPGRADES, upgrades, { recursive: true });
    mkdirSync(join(upgrades, '17.0', 'acme_custom', '17.0.1.0'), { recursive: true });
    customScript = join(upgrades, '17.0', 'acme_custom', '17.0.1.0', 'post-migration.sql');
    writeFileSync(customScript, 'select 1;\n');
    mkdirSync(join(upgrades, '18.0', 'acme_custom', '18.0.1.0'), { recursive: true });
    customScript18 = join(upgrades, '18.0', 'acme_custom', '18.0.1.0', 'post-migration.sql');
    writeFileSync(customScript18, 'select 1;\n');
    platform = await startTestPlatform(
      [executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 60, FORJA_UPGRADE_PATH: `${upgrades}/{version}` })],
      { FORJA_PULL_ALLOW_HOSTS: '127.0.0.1' },
    );
    await platform.createUser('dev@example.com', 'developer');
    const created = await call('/api/v1/projects', { method: 'POST', json: { name: 'Acme ERP' } });
    expect(created.status, await created.clone().text()).to.equal(201);
    project = ((await created.json()) as { slug: string }).slug;
    expect((await call(`/api/v1/projects/${project}/repository`, { method: 'PUT', json: { git_repo: repo.url } })).status).to.equal(200);
  });
  after(async () => {
    await platform?.stop();
  });

  const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${platform.urls.controlPlane}${path}`, {
      ...init,
      headers: { authorization: basic('dev@example.com'), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    const created = await call('/api/v1/migrations', { method: 'POST', json: { name, origin: '16.0', destination: '17.0', pull_url: dumpUrl, ...extra } });
    expect(created.status, await created.clone().text()).to.equal(201);
    return (await created.json()) as { slug: string; working_database: string; project: string | null; code: object };
  };
  const runOf = async (slug: string, number: number) => (await (await call(`/api/v1/migrations/${slug}/runs/${number}`)).json()) as RunBody;
  const ended = async (slug: string, number: number) => {
    let last: RunBody | undefined;
    await waitUntil(async () => ['failed', 'succeeded', 'cancelled'].includes((last = await runOf(slug, number)).status), `run ${number} of ${slug} to end`, 120_000);
    return last!;
  };
  const runLog = (slug: string, number: number) => readFileSync(join(platform.config.FORJA_DATA_DIR, 'migrations', slug, 'runs', String(number), 'run.log'), 'utf8');
  const moduleVersions = async (database: string) => {
    const client = new pg.Client(cluster.urlFor(database));
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; latest_version: string }>(`select name, latest_version from ir_module_module where state = 'installed' and name in ('acme_custom', 'oca_widget', 'sale') order by name`);
      return Object.fromEntries(rows.map((row) => [row.name, row.latest_version]));
    } finally {
      await client.end();
    }
  };

  it('without the code named, stops at the coverage pre-flight naming the custom modules', async () => {
    const { slug } = await create('No code');
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    const run = await ended(slug, 1);
    expect(run.status).to.equal('failed');
    expect(run.steps.find((step) => step.id === 'coverage')?.error).to.match(/2 installed module\(s\) the 17\.0 ERP cannot load: acme_custom, oca_widget/);
    // Issue 26, item 2: the readiness report says so per module, from the failed pre-flight.
    const readiness = (await (await call(`/api/v1/migrations/${slug}/readiness`)).json()) as Readiness;
    expect(readiness.run).to.equal(1);
    const modules = byModule(readiness.hops[0]!);
    expect(modules['acme_custom']).to.deep.include({ found: 'missing', verdict: 'blocks' });
    expect(modules['oca_widget']).to.deep.include({ found: 'missing', verdict: 'blocks' });
    expect(modules['sale']).to.deep.include({ found: 'standard', openupgrade: 'done', verdict: 'ok' });
    expect(readiness.hops[0]!.counts.blocks).to.equal(2);
    // …and in the run's PDF report, read back with poppler's pdftotext.
    const generated = await call(`/api/v1/migrations/${slug}/runs/1/report`, { method: 'POST' });
    expect(generated.status, await generated.clone().text()).to.equal(201);
    const pdf = Buffer.from(await (await call(((await generated.json()) as { download: string }).download)).arrayBuffer());
    const text = pdfToText(pdf, runDir('readiness-pdf'), 'readiness');
    expect(text).to.include('Readiness').and.match(/16\.0 -> 17\.0: \d+ ready, \d+ with a warning, 2 blocking/);
    expect(text).to.match(/acme_custom\s+missing/).and.match(/oca_widget\s+missing/);
  });

  it('with the 17.0 branch named, migrates every module, the custom one and the submodule\'s included; a resume after a failed upgrade reuses the checkout', async () => {
    writeFileSync(customScript, "select 1/0; -- acme's 17.0 script, broken\n");
    const migration = await create('With code', { project, code: { '17.0': { branch: '17.0' } } });
    expect(migration).to.deep.include({ project, code: { '17.0': { branch: '17.0', commit: null } } });
    expect((await call(`/api/v1/migrations/${migration.slug}/run`, { method: 'POST' })).status).to.equal(201);
    const failed = await ended(migration.slug, 1);
    expect(failed.status).to.equal('failed');
    expect(failed.steps.find((step) => step.id === 'coverage')?.status).to.equal('completed');
    expect(failed.error).to.match(/^upgrade: /);
    expect(runLog(migration.slug, 1)).to.match(/code for 17\.0: checking out .*'s branch 17\.0 at [0-9a-f]{12}, with its submodules/);

    writeFileSync(customScript, 'select 1;\n');
    expect((await call(`/api/v1/migrations/${migration.slug}/run`, { method: 'POST' })).status).to.equal(201);
    const resumed = await ended(migration.slug, 2);
    expect(resumed.status, resumed.error ?? '').to.equal('succeeded');
    const log = runLog(migration.slug, 2);
    expect(log).to.match(/code for 17\.0: reusing the checkout of .*'s branch 17\.0 at [0-9a-f]{12}/).and.not.include('checking out');
    expect(log).to.match(/addons path: .*\/work\/code\/17\.0\/addons,.*\/work\/code\/17\.0\/vendor\/oca\/web_tools/);
    const versions = await moduleVersions(migration.working_database);
    expect(Object.keys(versions)).to.deep.equal(['acme_custom', 'oca_widget', 'sale']);
    for (const [name, version] of Object.entries(versions)) expect(version, name).to.match(/^17\.0\./);
    const readiness = (await (await call(`/api/v1/migrations/${migration.slug}/readiness`)).json()) as Readiness;
    expect(readiness.run, 'the resume reused run 1\'s pre-flight').to.equal(1);
    const modules = byModule(readiness.hops[0]!);
    expect(modules['acme_custom']).to.deep.include({ found: 'code', where: 'addons/acme_custom', verdict: 'ok' });
    expect(modules['oca_widget']).to.deep.include({ found: 'submodule', where: 'vendor/oca/web_tools/oca_widget', verdict: 'ok' });
    expect(readiness.hops[0]!.counts.blocks).to.equal(0);
  });

  it('16.0 → 18.0 with a branch per hop: a failure in the second hop resumes without fetching either hop\'s code again', async () => {
    writeFileSync(customScript18, "select 1/0; -- acme's 18.0 script, broken\n");
    const migration = await create('Two hops', { destination: '18.0', project, code: { '17.0': { branch: '17.0' }, '18.0': { branch: '18.0' } } });
    expect((await call(`/api/v1/migrations/${migration.slug}/run`, { method: 'POST' })).status).to.equal(201);
    const failed = await ended(migration.slug, 1);
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.match(/^h2_upgrade: /);
    const first = runLog(migration.slug, 1);
    expect(first).to.match(/code for 17\.0: checking out .*'s branch 17\.0/).and.match(/code for 18\.0: checking out .*'s branch 18\.0/);

    writeFileSync(customScript18, 'select 1;\n');
    expect((await call(`/api/v1/migrations/${migration.slug}/run`, { method: 'POST' })).status).to.equal(201);
    const resumed = await ended(migration.slug, 2);
    expect(resumed.status, resumed.error ?? '').to.equal('succeeded');
    const log = runLog(migration.slug, 2);
    expect(log).to.match(/code for 18\.0: reusing the checkout of .*'s branch 18\.0 at [0-9a-f]{12}/).and.not.include('checking out');
    const versions = await moduleVersions(migration.working_database);
    expect(Object.keys(versions)).to.deep.equal(['acme_custom', 'oca_widget', 'sale']);
    for (const [name, version] of Object.entries(versions)) expect(version, name).to.match(/^18\.0\./);
  });

  it('refuses code for a version the route does not reach, code without a project, and an unknown project, naming the field', async () => {
    const refused = async (extra: Record<string, unknown>) => {
      const answer = await call('/api/v1/migrations', { method: 'POST', json: { name: 'Refused', origin: '16.0', destination: '17.0', pull_url: dumpUrl, ...extra } });
      expect(answer.status).to.equal(422);
      return JSON.stringify(await answer.json());
    };
    expect(await refused({ project, code: { '18.0': { branch: '18.0' } } })).to.include('code names 18.0, which is not a version this migration reaches (16.0 → 17.0 reaches 17.0)');
    expect(await refused({ code: { '17.0': { branch: '17.0' } } })).to.include('code per version needs the project whose repository holds it');
    expect(await refused({ project: 'no-such-project', code: { '17.0': { branch: '17.0' } } })).to.include('no project no-such-project');
    expect(await refused({ project, code: { '17.0': { branch: '-x' } } })).to.include('branch');
  });
});
