import { expect } from 'chai';
import { startErpRouterProcess } from '#services/control-plane/erpRouter/erpRouterProcess.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { startIdleSweep } from '#services/executor/idleSweep.ts';
import { silentLogger } from '#shared/log.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { createBareRepo } from '#test/support/bareRepo.ts';
import { requestWithHost } from '#test/support/erpStandins.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';

/** The router in front of a real ERP (the stand-in on the process runtime), put to sleep by the real idle sweep and woken by a visit. */
describe('ERP router with the ERP stand-in on the process runtime', function () {
  this.timeout(120_000);
  let platform: TestPlatform;
  let router: ForjaProcess;
  let client: ReturnType<typeof instanceClient>;
  let port: number;

  before(async () => {
    const repo = await createBareRepo('acme', []);
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: (await testCluster()).urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' })]);
    router = await startErpRouterProcess(platform.infra, { ...platform.config, FORJA_ERP_ROUTER_PORT: 0 }, silentLogger);
    port = Number(new URL(router.url!).port);
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
    await client.create({ name: 'dev', project: 'Acme', erp_version: '17.0', git_repo: repo.url, branch: 'main' });
    await client.settled('acme-dev', 'running');
  });
  after(async () => {
    await client?.act('acme-dev', 'stop').catch(() => undefined);
    await router?.stop();
    await platform?.stop();
  });

  it('answers the running ERP at acme-dev.localhost, then wakes it after the idle sweep put it to sleep', async () => {
    const host = `acme-dev.localhost:${port}`;
    const health = await requestWithHost(port, host, { path: '/web/health' });
    expect(health.status).to.equal(200);
    expect(JSON.parse(health.text)).to.include({ status: 'pass' });

    const sweep = startIdleSweep({ store: platform.infra.store, readModel: platform.infra.db.withSchema('read_model'), sleepAfterMs: 1, logger: silentLogger, everyMs: 3_600_000 });
    try {
      expect(await sweep.sweep()).to.deep.equal(['acme-dev']);
    } finally {
      sweep.stop();
    }
    // The sweep's request reaches the read model a moment later: until then the instance still reads `running` with no job.
    await waitUntil(async () => (await client.get('acme-dev')).status !== 'running', 'the sleep request to show', 30_000);
    await client.settled('acme-dev', 'sleeping');

    const waking = await requestWithHost(port, host, { path: '/web/health' });
    expect(waking.status).to.equal(503);
    expect(waking.text).to.contain('acme-dev is waking up');
    await waitUntil(async () => (await requestWithHost(port, host, { path: '/web/health' })).status === 200, 'the woken ERP to answer through the router', 60_000);
    expect((await client.get('acme-dev')).status).to.equal('running');
  });
});
