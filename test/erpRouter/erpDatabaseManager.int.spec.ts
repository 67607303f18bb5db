import { statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { startErpRouterProcess } from '#services/control-plane/erpRouter/erpRouterProcess.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { silentLogger } from '#shared/log.ts';
import { instanceDir } from '#shared/platform/dataPaths.ts';
import { tenantAccount } from '#shared/local/tenantAccount.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { createBareRepo } from '#test/support/bareRepo.ts';
import { requestWithHost } from '#test/support/erpStandins.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';

/**
 * Issue 24 finding 9: a real ERP keeps its database manager open with the master password
 * `admin`, and while it is `admin` any password submitted to /web/database/backup or /drop is
 * taken. An instance started by the real process runtime on the ERP stand-in (which imitates
 * that) must refuse a guessed master password on its own port and through the router.
 */
describe("an instance's ERP database manager (process runtime, ERP stand-in)", function () {
  this.timeout(120_000);
  let platform: TestPlatform;
  let router: ForjaProcess;
  let client: ReturnType<typeof instanceClient>;
  let routerPort: number;
  let erpUrl: string;
  const slug = 'acme-dbm';
  const database = databaseName(slug);

  const databaseExists = async () => {
    const admin = new pg.Client((await testCluster()).urlFor('postgres'));
    await admin.connect();
    try {
      return ((await admin.query('select 1 from pg_database where datname = $1', [database])).rowCount ?? 0) > 0;
    } finally {
      await admin.end();
    }
  };
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
  const guesses = { master_pwd: 'admin', name: database, backup_format: 'zip' };

  before(async () => {
    const repo = await createBareRepo('acme', []);
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: (await testCluster()).urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' })]);
    router = await startErpRouterProcess(platform.infra, { ...platform.config, FORJA_ERP_ROUTER_PORT: 0 }, silentLogger);
    routerPort = Number(new URL(router.url!).port);
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
    await client.create({ name: 'dbm', project: 'Acme', erp_version: '17.0', git_repo: repo.url, branch: 'main' });
    erpUrl = (await client.settled(slug, 'running')).url!;
  });
  after(async () => {
    await client?.act(slug, 'stop').catch(() => undefined);
    await router?.stop();
    await platform?.stop();
  });

  it('refuses backup and drop with a guessed master password on the ERP port (list_db = False) and through the router; the database stays', async () => {
    expect(new URL(erpUrl).hostname).to.equal('127.0.0.1');
    for (const route of ['backup', 'drop']) {
      for (const master_pwd of ['admin', 'guessed']) {
        const direct = await fetch(`${erpUrl}/web/database/${route}`, { method: 'POST', body: new URLSearchParams({ ...guesses, master_pwd }), redirect: 'manual' });
        expect(direct.status, `${route} ${master_pwd} on the ERP port`).to.equal(403);
        expect(await direct.text()).to.contain('The database manager has been disabled by the administrator');
        const routed = await requestWithHost(routerPort, `${slug}.localhost:${routerPort}`, { method: 'POST', path: `/web/database/${route}`, body: new URLSearchParams({ ...guesses, master_pwd }).toString(), headers: FORM });
        expect(routed.status, `${route} ${master_pwd} through the router`).to.equal(404);
        expect(routed.text).to.contain('database manager is closed');
      }
    }
    expect(await databaseExists()).to.equal(true);
    expect((await client.get(slug)).status).to.equal('running');
    const health = await requestWithHost(routerPort, `${slug}.localhost:${routerPort}`, { path: '/web/health' });
    expect(health.status).to.equal(200);
  });

  it('keeps the configuration file, which holds the database password, for the ERP\'s account alone, in a folder the ERP cannot write (issue 25)', () => {
    const dir = join(instanceDir(platform.config.FORJA_DATA_DIR, slug), 'run');
    const file = statSync(join(dir, 'erp.conf'));
    expect(file.mode & 0o777).to.equal(0o600);
    expect(statSync(dir).mode & 0o777).to.equal(0o755);
    // As root the ERP runs as the instance's account (fi-<slug>), which owns the file; otherwise as Forja itself.
    const erpUid = tenantAccount('instance', slug)?.uid ?? process.getuid!();
    expect([file.uid, statSync(dir).uid]).to.deep.equal([erpUid, process.getuid!()]);
  });
});
