import { expect } from 'chai';
import pg from 'pg';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { STANDIN_IMAGE } from '#services/executor/runtime/docker/erpImage.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testEngine } from '#test/support/podman.ts';
import { testCluster } from '#test/support/postgres.ts';
import { testStandinImage } from '#test/support/standinImage.ts';

/** The same lifecycle through the executor on the docker runtime (podman's Engine API, the stand-in image). */
describe('instance lifecycle on the docker runtime', function () {
  this.timeout(180_000);
  let platform: TestPlatform | undefined;
  let client: ReturnType<typeof instanceClient>;

  before(async function () {
    const engine = await testEngine();
    if ('skip' in engine) {
      console.log(`      (skipped: ${engine.skip})`);
      this.skip();
    }
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
  after(() => platform?.stop());

  it('provisions in a container, stops, starts, and destroys', async () => {
    const created = await client.create({ name: 'box', project: 'Docker Co', erp_version: '17.0', modules: ['sale'] });
    const running = await client.settled(created.slug, 'running', 120_000);
    expect(running).to.include({ runtime: 'docker', standin: true });
    expect((await fetch(`${running.url}/web/health`)).status).to.equal(200);
    const db = new pg.Client({ connectionString: (await testCluster()).urlFor(databaseName(created.slug)) });
    await db.connect();
    const { rows } = await db.query<{ name: string }>("select name from ir_module_module where state = 'installed' order by name");
    await db.end();
    expect(rows.map((row) => row.name)).to.deep.equal(['base', 'sale']);

    await client.act(created.slug, 'stop');
    expect((await client.settled(created.slug, 'stopped')).url).to.equal(null);
    await client.act(created.slug, 'start');
    const restarted = await client.settled(created.slug, 'running', 60_000);
    expect((await fetch(`${restarted.url}/web/health`)).status).to.equal(200);
    await client.act(created.slug, 'destroy');
    await client.settled(created.slug, 'destroyed', 60_000);
    expect(await (await client.call(`/api/v1/instances/${created.slug}`)).json()).to.include({ status: 'destroyed' });
  });
});
