import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { apiCaller, stopRunningInstances } from '#test/support/migrationHarness.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { workingInstanceSlug } from '#shared/instanceDatabase/reservedNames.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
const STANDIN_UPGRADES = fileURLToPath(new URL('../../services/erp-standin/upgrades/', import.meta.url));

interface StepBody {
  id: string;
  status: string;
  error: string | null;
}
interface RunBody {
  number: number;
  status: string;
  error: string | null;
  steps: StepBody[];
}

/**
 * A community 16.0 → 17.0 migration end to end on this machine: the customer's dump (a 16.0
 * database the ERP stand-in made) is served over http on 127.0.0.1, the migration is created
 * through the API, and the executor runs the shipped recipe on the process runtime.
 */
describe('a migration run, end to end (process runtime, ERP stand-in)', function () {
  this.timeout(240_000);
  let platform: TestPlatform;
  let server: Server;
  let dumpUrl: string;
  let dumpPath: string;
  let requests = 0;
  /** sale's 17.0 post-migration script: the tests make it fail, sleep or pass. */
  let saleScript: string;
  let cluster: Awaited<ReturnType<typeof testCluster>>;

  before(async () => {
    cluster = await testCluster();
    const dir = runDir('migration-run');
    const upgrades = join(dir, 'upgrades');
    cpSync(STANDIN_UPGRADES, upgrades, { recursive: true });
    mkdirSync(join(upgrades, '17.0', 'sale', '17.0.1.0'), { recursive: true });
    saleScript = join(upgrades, '17.0', 'sale', '17.0.1.0', 'post-migration.sql');
    writeFileSync(saleScript, 'select 1;\n');
    // The customer's 16.0 database, dumped as the customer would hand it over.
    const source = `customer_${Date.now()}`;
    const parsed = new URL(cluster.url);
    const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    const installed = spawnSync(STANDIN, ['-d', source, '-i', 'sale,crm', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' } });
    expect(installed.status, installed.stderr).to.equal(0);
    // The customer's scheduled jobs, one of them off: the run stops them all and puts back these flags.
    const withCrons = new pg.Client(cluster.urlFor(source));
    await withCrons.connect();
    await withCrons.query(`insert into ir_cron (name, active) values ('Mail: send queue', true), ('Bank sync', false), ('Base: autovacuum', true)`);
    await withCrons.end();
    const dumpFile = join(dir, 'customer.dump');
    dumpPath = dumpFile;
    const dumped = spawnSync('pg_dump', ['-Fc', '-f', dumpFile, cluster.urlFor(source)], { encoding: 'utf8' });
    expect(dumped.status, dumped.stderr).to.equal(0);
    // The same database with crm depending on a module it does not have: the pre-flight refuses it.
    const broken = new pg.Client(cluster.urlFor(source));
    await broken.connect();
    await broken.query(`insert into ir_module_module_dependency (module_id, name) select id, 'acme_missing' from ir_module_module where name = 'crm'`);
    await broken.end();
    const brokenFile = join(dir, 'broken.dump');
    const dumpedBroken = spawnSync('pg_dump', ['-Fc', '-f', brokenFile, cluster.urlFor(source)], { encoding: 'utf8' });
    expect(dumpedBroken.status, dumpedBroken.stderr).to.equal(0);
    const files: Record<string, string> = { '/customer.dump': dumpFile, '/broken.dump': brokenFile };
    server = createServer((req, res) => {
      requests += 1;
      const file = files[req.url ?? ''];
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': String(statSync(file).size), 'content-type': 'application/octet-stream' });
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dumpUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/customer.dump`;
    const upgradePath = `${upgrades}/{version}`;
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 60, FORJA_UPGRADE_PATH: upgradePath })], {
      FORJA_PULL_ALLOW_HOSTS: '127.0.0.1',
    });
    await platform.createUser('dev@example.com', 'developer');
  });
  after(async () => {
    // ERP servers outlive the executor by design: stop the working instances the runs started.
    if (platform) await stopRunningInstances(call);
    await platform?.stop();
    server?.close();
  });

  const call = apiCaller(() => platform);

  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    const created = await call('/api/v1/migrations', { method: 'POST', json: { name, origin: '16.0', destination: '17.0', pull_url: dumpUrl, ...extra } });
    expect(created.status, await created.clone().text()).to.equal(201);
    return ((await created.json()) as { slug: string }).slug;
  };
  const runOf = async (slug: string, number: number) => (await (await call(`/api/v1/migrations/${slug}/runs/${number}`)).json()) as RunBody;
  const until = (slug: string, number: number, status: string, timeoutMs = 60_000) =>
    waitUntil(
      async () => {
        const now = await runOf(slug, number);
        if (now.status !== status && ['failed', 'succeeded', 'cancelled'].includes(now.status)) throw new Error(`run ${number} ended ${now.status}: ${now.error}`);
        return now.status === status;
      },
      `run ${number} of ${slug} to be ${status}`,
      timeoutMs,
    );
  const workingBackends = async (database: string) => {
    const admin = new pg.Client(cluster.urlFor('postgres'));
    await admin.connect();
    try {
      return (await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [database])).rows[0]!.n;
    } finally {
      await admin.end();
    }
  };

  it('runs the shipped 16.0 → 17.0 recipe from a pull_url to migrated: every module at 17.0, artifacts stored, a working instance running', async () => {
    const created = await call('/api/v1/migrations', { method: 'POST', json: { name: 'Customer upgrade', origin: '16.0', destination: '17.0', pull_url: dumpUrl } });
    expect(created.status, await created.clone().text()).to.equal(201);
    const { slug } = (await created.json()) as { slug: string };
    const started = await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' });
    expect(started.status, await started.clone().text()).to.equal(201);
    let last: RunBody | undefined;
    await waitUntil(
      async () => {
        last = (await (await call(`/api/v1/migrations/${slug}/runs/1`)).json()) as RunBody;
        if (last.status === 'failed') throw new Error(`the run failed: ${last.error}; ${JSON.stringify(last.steps.filter((step) => step.error))}`);
        return last.status === 'succeeded';
      },
      'the run to succeed',
      200_000,
    );
    expect(last!.steps.every((step) => ['completed', 'skipped'].includes(step.status)), JSON.stringify(last!.steps)).to.equal(true);
    const migration = (await (await call(`/api/v1/migrations/${slug}`)).json()) as { status: string; working_database: string; input: { bytes: number; sha256: string } };
    expect(migration.status).to.equal('migrated');
    expect(migration.input, 'what the download learnt of the input').to.deep.include({ bytes: statSync(dumpPath).size, sha256: createHash('sha256').update(readFileSync(dumpPath)).digest('hex') });
    const client = new pg.Client((await testCluster()).urlFor(migration.working_database));
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; latest_version: string }>("select name, latest_version from ir_module_module where state = 'installed'");
      expect(rows.length).to.be.greaterThan(2);
      expect(rows.filter((row) => !row.latest_version.startsWith('17.0.')), 'every installed module at 17.0').to.deep.equal([]);
      const crons = await client.query<{ name: string; active: boolean }>('select name, active from ir_cron order by id');
      expect(crons.rows.map((row) => `${row.name}:${row.active}`), 'the crons back as the customer had them').to.include.members(['Mail: send queue:true', 'Bank sync:false', 'Base: autovacuum:true']);
      expect((await client.query("select to_regclass('forja_saved_cron_state') as saved")).rows[0].saved, 'the saved flags dropped').to.equal(null);
    } finally {
      await client.end();
    }
    expect(requests, 'the dump was downloaded once').to.equal(1);
    const runDirectory = join(platform.config.FORJA_DATA_DIR, 'migrations', slug, 'runs', '1');
    for (const artifact of ['dump_result.dump', 'filestore_result.tar.gz', 'report.pdf', 'backup_origin.dump']) {
      expect(existsSync(join(runDirectory, artifact)), `artifact ${artifact} stored`).to.equal(true);
    }
    const { artifacts } = (await (await call(`/api/v1/migrations/${slug}/runs/1`)).json()) as { artifacts: Array<{ id: number; kind: string; name: string; bytes: number; sha256: string }> };
    expect(artifacts.map((artifact) => artifact.kind)).to.deep.equal(['backup', 'dump', 'filestore', 'report']);
    const dump = artifacts.find((artifact) => artifact.kind === 'dump')!;
    const download = await call(`/api/v1/migrations/${slug}/artifacts/${dump.id}`);
    expect(download.status).to.equal(200);
    const body = Buffer.from(await download.arrayBuffer());
    expect(body.length).to.equal(dump.bytes);
    expect(createHash('sha256').update(body).digest('hex')).to.equal(dump.sha256).and.equal(download.headers.get('x-content-sha256'));
    expect(download.headers.get('content-disposition')).to.equal(`attachment; filename="${dump.name}"`);
    expect((await call(`/api/v1/migrations/${slug}/artifacts/1999`)).status).to.equal(404);
    expect((await call(`/api/v1/migrations/${slug}/artifacts/x`)).status).to.equal(422);
    const working = (await (await call(`/api/v1/instances/${workingInstanceSlug(slug, 1)}`)).json()) as { status: string; erp_version: string; url: string };
    expect(working).to.include({ status: 'running', erp_version: '17.0' });
    expect((await fetch(`${working.url}/web/health`)).status, 'the working instance answers').to.equal(200);
  });

  it('resumes a failed upgrade from its failed step after the fix, from the checkpoint, reusing the download and the restore', async () => {
    writeFileSync(saleScript, 'select 1 / 0;\n');
    const before = requests;
    const slug = await create('Failing upgrade');
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    await waitUntil(async () => (await runOf(slug, 1)).status === 'failed', 'the upgrade to fail', 60_000);
    const failed = await runOf(slug, 1);
    expect(failed.error).to.match(/^upgrade: /);
    writeFileSync(saleScript, 'select 1;\n');
    const resumed = await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' });
    expect(resumed.status).to.equal(201);
    expect(((await resumed.json()) as { kind: string }).kind).to.equal('resume');
    await until(slug, 2, 'succeeded');
    const second = await runOf(slug, 2);
    const statusOf = (id: string) => second.steps.find((step) => step.id === id)?.status;
    expect([statusOf('fetch'), statusOf('restore'), statusOf('upgrade')]).to.deep.equal(['reused', 'reused', 'completed']);
    expect(requests - before, 'one download over both runs').to.equal(1);
    const log = readFileSync(join(platform.config.FORJA_DATA_DIR, 'migrations', slug, 'runs', '2', 'run.log'), 'utf8');
    expect(log, 'the resumed upgrade started from the checkpoint, not from the half-migrated database').not.to.match(/not migrated again/);
    // Issue 26: OpenUpgrade's folder on the hop's addons path (the stand-in refuses --load=…openupgrade_framework without it), the recipe's env in the ERP's.
    expect(log).to.include('(environment: OPENUPGRADE_TARGET_VERSION)').and.include('OpenUpgrade: migrating to 17.0, on the way to 17.0 (OPENUPGRADE_TARGET_VERSION)');
  });

  it('pauses during a long upgrade: within 5 s nothing runs on the working database; resume finishes the run', async () => {
    writeFileSync(saleScript, 'select pg_sleep(120);\n');
    const slug = await create('Paused upgrade');
    const { working_database: database } = (await (await call(`/api/v1/migrations/${slug}`)).json()) as { working_database: string };
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    await waitUntil(async () => (await runOf(slug, 1)).steps.find((step) => step.id === 'upgrade')?.status === 'running' && (await workingBackends(database)) > 0, 'the upgrade to run', 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // well inside the sleeping script
    const paused = await call(`/api/v1/migrations/${slug}/pause`, { method: 'POST' });
    expect(paused.status).to.equal(200);
    const asked = Date.now();
    await waitUntil(async () => (await workingBackends(database)) === 0, 'no backend on the working database', 5_000);
    expect(Date.now() - asked).to.be.below(5_000);
    expect((await runOf(slug, 1)).status).to.equal('paused');
    writeFileSync(saleScript, 'select 1;\n');
    expect((await call(`/api/v1/migrations/${slug}/resume`, { method: 'POST' })).status).to.equal(200);
    await until(slug, 1, 'succeeded');
    const upgrade = (await runOf(slug, 1)).steps.find((step) => step.id === 'upgrade');
    expect(upgrade).to.include({ status: 'completed', attempts: 2 });
  });

  it('waits at the production gate until an operator approves, recording who; a rejection fails the run', async () => {
    writeFileSync(saleScript, 'select 1;\n');
    for (const decision of ['approve', 'reject'] as const) {
      const slug = await create(`Production ${decision}`, { purpose: 'production' });
      expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
      await until(slug, 1, 'waiting');
      const waiting = await runOf(slug, 1);
      expect(waiting.steps.find((step) => step.id === 'approve')).to.include({ status: 'waiting' });
      expect(waiting.steps.some((step) => step.id === 'stop_mail'), 'a production migration keeps its mail servers').to.equal(false);
      expect(((await (await call(`/api/v1/migrations/${slug}`)).json()) as { status: string }).status).to.equal('waiting');
      const resolved = await call(`/api/v1/migrations/${slug}/runs/1/resume`, { method: 'POST', json: { decision, note: 'backup checked' } });
      expect(resolved.status, await resolved.clone().text()).to.equal(200);
      if (decision === 'approve') {
        await until(slug, 1, 'succeeded');
      } else {
        await waitUntil(async () => (await runOf(slug, 1)).status === 'failed', 'the rejected run to fail', 30_000);
        expect((await runOf(slug, 1)).error).to.match(/^approve: rejected by /);
      }
    }
  });

  it('runs anyway past a failed pre-flight, with the reason, reusing the download and the restore', async () => {
    const slug = await create('Broken dependency', { pull_url: dumpUrl.replace('customer.dump', 'broken.dump') });
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    await waitUntil(async () => (await runOf(slug, 1)).status === 'failed', 'the pre-flight to fail', 60_000);
    expect((await runOf(slug, 1)).error).to.match(/^broken_dependencies: /);
    const before = requests;
    const anyway = await call(`/api/v1/migrations/${slug}/run-anyway`, { method: 'POST', json: { reason: 'acme_missing was removed from the product long ago' } });
    expect(anyway.status, await anyway.clone().text()).to.equal(201);
    await until(slug, 2, 'succeeded');
    const second = await runOf(slug, 2);
    const statusOf = (id: string) => second.steps.find((step) => step.id === id)?.status;
    expect([statusOf('fetch'), statusOf('restore'), statusOf('broken_dependencies'), statusOf('upgrade')]).to.deep.equal(['reused', 'reused', 'skipped', 'completed']);
    expect(requests, 'nothing downloaded again').to.equal(before);
  });

  it('stops a live run back to draft: the step killed, the working database and files gone; the next run starts over', async () => {
    writeFileSync(saleScript, 'select pg_sleep(120);\n');
    const slug = await create('Stopped upgrade');
    const { working_database: database } = (await (await call(`/api/v1/migrations/${slug}`)).json()) as { working_database: string };
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    await waitUntil(async () => (await runOf(slug, 1)).steps.find((step) => step.id === 'upgrade')?.status === 'running' && (await workingBackends(database)) > 0, 'the upgrade to run', 60_000);
    const stopped = await call(`/api/v1/migrations/${slug}/stop`, { method: 'POST' });
    expect(((await stopped.json()) as { status: string }).status).to.equal('draft');
    const exists = async (name: string) => {
      const admin = new pg.Client(cluster.urlFor('postgres'));
      await admin.connect();
      try {
        return (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
      } finally {
        await admin.end();
      }
    };
    await waitUntil(async () => !(await exists(database)) && !(await exists(`${database}_ck`)), 'the working database and its checkpoint to be dropped', 15_000);
    await waitUntil(async () => !existsSync(join(platform.config.FORJA_DATA_DIR, 'migrations', slug)), 'the migration folder to be removed', 15_000);
    // The first migration's working instance goes when that migration is stopped too.
    const first = 'customer-upgrade';
    expect((await call(`/api/v1/migrations/${first}/stop`, { method: 'POST' })).status).to.equal(200);
    await waitUntil(async () => ((await (await call(`/api/v1/instances/${workingInstanceSlug(first, 1)}`)).json()) as { status: string }).status === 'destroyed', 'its working instance to be destroyed', 30_000);
    writeFileSync(saleScript, 'select 1;\n');
    const before = requests;
    const again = await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' });
    expect(((await again.json()) as { number: number; kind: string }).kind).to.equal('run');
    await until(slug, 2, 'succeeded');
    expect(requests - before, 'from scratch: downloaded again').to.equal(1);
  });
});
