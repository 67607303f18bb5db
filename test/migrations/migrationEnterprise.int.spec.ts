import { spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { migrationDatabasesOf } from '#services/control-plane/migrations/migrationSlug.ts';
import { STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { writeModule } from '#test/support/addonsRepo.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { apiCaller, stopRunningInstances } from '#test/support/migrationHarness.ts';
import { runDir } from '#test/support/runDir.ts';
import { RETURNED_FILE, type UpgradePlatform, startUpgradePlatform } from '#test/support/upgradePlatform.ts';
import { waitUntil } from '#test/support/wait.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
const CONTRACT = 'M123456-abcdef';

interface RunBody {
  number: number;
  status: string;
  error: string | null;
  steps: Array<{ id: string; status: string; error: string | null }>;
  artifacts: Array<{ kind: string; name: string }>;
}

/**
 * An enterprise 16.0 → 17.0 migration as a user makes it: created through the API with the
 * upgrade-service engine and a contract, run by the executor on the shipped enterprise recipe,
 * the database sent to the imitation of the vendor's platform (JSON-RPC, rsync over a local sshd;
 * test/support/upgradePlatform.ts) and back, the enterprise addons on every ERP run of the hop.
 */
describe('an enterprise migration through the upgrade platform, end to end (process runtime, ERP stand-in)', function () {
  this.timeout(300_000);
  let platform: TestPlatform;
  let upgrade: UpgradePlatform;
  let server: Server;
  let dumpUrl: string;
  let cluster: Awaited<ReturnType<typeof testCluster>>;

  before(async () => {
    cluster = await testCluster();
    const dir = runDir('migration-enterprise');
    // The enterprise addons of each version, as FORJA_ERP_ENTERPRISE_ADDONS names them: web_enterprise.
    // The customer's ERP ran with the standard addons and these (an addons path replaces the default).
    const enterprise = join(dir, 'enterprise');
    for (const version of ['16.0', '17.0']) {
      mkdirSync(join(enterprise, version), { recursive: true });
      await writeModule(join(enterprise, version, 'web_enterprise'), 'web_enterprise', ['base']);
    }
    const source = `entcustomer_${Date.now()}`;
    const parsed = new URL(cluster.url);
    const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    const installed = spawnSync(STANDIN, ['-d', source, '-i', 'sale,web_enterprise', '--addons-path', `${STANDIN_STANDARD_ADDONS},${join(enterprise, '16.0')}`, '--stop-after-init', ...connection], {
      encoding: 'utf8',
      env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' },
    });
    expect(installed.status, installed.stderr).to.equal(0);
    const crons = new pg.Client(cluster.urlFor(source));
    await crons.connect();
    await crons.query(`insert into ir_cron (name, active) values ('Mail: send queue', true), ('Bank sync', false)`);
    await crons.end();
    const dumpFile = join(dir, 'customer.dump');
    const dumped = spawnSync('pg_dump', ['-Fc', '-f', dumpFile, cluster.urlFor(source)], { encoding: 'utf8' });
    expect(dumped.status, dumped.stderr).to.equal(0);
    server = createServer((req, res) => {
      if (req.url !== '/customer.dump') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': String(statSync(dumpFile).size), 'content-type': 'application/octet-stream' });
      createReadStream(dumpFile).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dumpUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/customer.dump`;
    upgrade = await startUpgradePlatform({ contracts: [CONTRACT], progressPolls: 1 });
    platform = await startTestPlatform(
      [
        executorStarter({
          FORJA_RUNTIME: 'process',
          FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'),
          FORJA_HEALTH_TIMEOUT_S: 60,
          FORJA_ERP_ENTERPRISE_ADDONS: `${enterprise}/{version}`,
          FORJA_UPGRADE_SERVICE_URL: upgrade.url,
          FORJA_UPGRADE_SERVICE_SSH_USER: userInfo().username,
        }),
      ],
      { FORJA_PULL_ALLOW_HOSTS: '127.0.0.1' },
    );
    await platform.createUser('dev@example.com', 'developer');
  });
  after(async () => {
    if (platform) await stopRunningInstances(call);
    await platform?.stop();
    await upgrade?.close();
    server?.close();
  });

  const call = apiCaller(() => platform);

  it('migrates to 17.0 through the platform: modules at 17.0, the returned filestore merged, crons back, the report kept', async () => {
    const created = await call('/api/v1/migrations', {
      method: 'POST',
      json: { name: 'Enterprise upgrade', origin: '16.0', destination: '17.0', flavor: 'enterprise', engine: 'upgrade-service', contract: CONTRACT, purpose: 'test', pull_url: dumpUrl },
    });
    expect(created.status, await created.clone().text()).to.equal(201);
    const { slug } = (await created.json()) as { slug: string };
    const started = await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' });
    expect(started.status, await started.clone().text()).to.equal(201);
    let run: RunBody | undefined;
    await waitUntil(
      async () => {
        run = (await (await call(`/api/v1/migrations/${slug}/runs/1`)).json()) as RunBody;
        if (['failed', 'cancelled'].includes(run.status)) throw new Error(`run 1 ended ${run.status}: ${run.error} ${JSON.stringify(run.steps.filter((step) => step.error))}`);
        return run.status === 'succeeded';
      },
      'the enterprise run to succeed',
      240_000,
    );
    expect(run!.steps.find((step) => step.id === 'upgrade')?.status).to.equal('completed');

    // The platform got the dump over rsync, never in an HTTP body, and sent back its result.
    const [request] = [...upgrade.requests.values()];
    expect(request).to.include({ target: '17.0', aim: 'test', state: 'done' });
    expect(request?.uploaded?.bytes).to.be.above(1000);
    expect(upgrade.counts.legacy).to.equal(0);
    expect(upgrade.largestBody()).to.be.below(4096);

    const working = migrationDatabasesOf(slug).workingDatabase;
    const client = new pg.Client(cluster.urlFor(working));
    await client.connect();
    try {
      const modules = (await client.query<{ name: string; latest_version: string }>("select name, latest_version from ir_module_module where state = 'installed' order by name")).rows;
      expect(modules.map((module) => module.name)).to.include.members(['sale', 'web_enterprise']);
      expect(modules.filter((module) => !module.latest_version.startsWith('17.0.')), 'modules not at 17.0').to.deep.equal([]);
      expect((await client.query(`select store_fname from ir_attachment where name = $1`, [RETURNED_FILE.name])).rows).to.deep.equal([{ store_fname: RETURNED_FILE.path }]);
      expect((await client.query<{ name: string; active: boolean }>('select name, active from ir_cron order by name')).rows).to.deep.include.members([
        { name: 'Bank sync', active: false },
        { name: 'Mail: send queue', active: true },
      ]);
    } finally {
      await client.end();
    }
    const filestore = join(platform.config.FORJA_DATA_DIR, 'migrations', slug, 'work', 'filestore', working);
    expect(readFileSync(join(filestore, RETURNED_FILE.path), 'utf8'), 'the returned filestore merged into the working one').to.equal(RETURNED_FILE.content);
    expect(run!.artifacts.map((artifact) => `${artifact.kind} ${artifact.name}`)).to.include('report upgrade.upgrade-report.html');
    expect(readdirSync(join(platform.config.FORJA_DATA_DIR, 'migrations', slug)).includes('private') ? readdirSync(join(platform.config.FORJA_DATA_DIR, 'migrations', slug, 'private')) : []).to.deep.equal([]);
  });
});
