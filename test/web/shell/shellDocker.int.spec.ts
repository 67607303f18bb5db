import { realpathSync } from 'node:fs';
import { expect } from 'chai';
import type Docker from 'dockerode';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { tenantAccount } from '#shared/local/tenantAccount.ts';
import { jobPlayer } from '#test/support/instanceJobs.ts';
import { testEngine } from '#test/support/podman.ts';
import { testStandinImage } from '#test/support/standinImage.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import type { WebSession } from '#test/support/webSession.ts';
import { openShell } from './shellClient.ts';

const SLUG = 'shell-docker-main';
/** The stand-in image holds node (at its real path on this machine) and /bin/sh, no more: node reports the pty's size. */
const NODE = realpathSync(process.execPath);
const SIZE_PROBE = `${NODE} -e 'console.log("size " + process.stdout.rows + "x" + process.stdout.columns)'`;
const UID_PROBE = `${NODE} -e 'console.log("uid=" + process.getuid() + ":" + process.getgid())'`;

/** The docker runtime's shell: an exec in the instance's running container (podman's Engine API, the ERP stand-in image). */
describe('the web shell on the docker runtime (an exec in the instance container)', function () {
  this.timeout(120_000);
  let platform: WebPlatform | undefined;
  let developer: WebSession;
  let docker: Docker;
  let container: Docker.Container;
  const shellEvents = async (): Promise<RecordedEvent[]> => (await platform!.infra.store.readStream(`instance-${SLUG}`)).events.filter((event) => event.type.startsWith('InstanceShell'));

  before(async function () {
    const engine = await testEngine();
    if ('skip' in engine) {
      console.log(`      (skipped: ${engine.skip})`);
      this.skip();
    }
    docker = engine.docker;
    const image = await testStandinImage(docker, '18.0');
    // The executor's ERP container as web finds it: by its labels; what it runs does not matter here.
    container = await docker.createContainer({
      Image: image,
      name: `forja-${SLUG}-erp`,
      // Past the image's entrypoint, as the runtime starts it (erpContainer.ts), which needs the checkout mounted.
      Entrypoint: [NODE],
      Cmd: ['-e', 'setInterval(() => {}, 1 << 30)'],
      Labels: { 'forja.instance': SLUG, 'forja.role': 'erp' },
      HostConfig: { NetworkMode: 'host' },
    });
    await container.start();
    platform = await startWebPlatform({ FORJA_DOCKER_SOCKET: engine.socketPath });
    developer = await platform.signedIn('developer');
    expect((await developer.post('/projects', { name: 'Shell Docker' })).status).to.equal(303);
    expect((await developer.post('/instances', { name: 'Main', project: 'shell-docker', erp_version: '18.0' })).location).to.equal(`/instances/${SLUG}`);
    await jobPlayer(platform).run(SLUG, { build: { runtime: 'docker', standin: true }, start: { url: 'http://127.0.0.1:18096' } });
  });
  after(async () => {
    await container?.remove({ force: true }).catch(() => {});
    await platform?.stop();
  });

  it('runs commands in the container, at the page’s size, resized through the engine, recorded with runtime docker', async () => {
    const client = await openShell(platform!.web, developer, SLUG, { query: '?cols=90&rows=20' });
    client.type('echo "in-$((6*7))"\r');
    await client.waitFor(/in-42/);
    client.type(`${SIZE_PROBE}\r`);
    await client.waitFor(/size 20x90/);
    client.resize(101, 33);
    client.type(`${SIZE_PROBE}\r`);
    await client.waitFor(/size 33x101/);
    // Issue 24: as the instance's own uid (named in the exec), never the image's root nor another instance's.
    const account = tenantAccount('instance', SLUG);
    client.type(`${UID_PROBE}\r`);
    const [, ids] = await client.waitFor(/uid=(\d+:\d+)/);
    if (account) expect(ids).to.equal(`${account.uid}:${account.gid}`);
    client.type('exit\r');
    await client.closed;
    expect(client.messages.at(-1)).to.deep.include({ type: 'closed', reason: 'user' });
    await waitUntil(async () => (await shellEvents()).length === 2, 'the opened and closed events');
    const [opened, closed] = await shellEvents();
    expect(opened!.data).to.deep.include({ slug: SLUG, runtime: 'docker', user: 'dev@example.com' });
    expect(closed!.data).to.deep.include({ reason: 'user' });
  });

  it('refuses when the container is not running, recording nothing', async () => {
    await container.stop({ t: 1 });
    const client = await openShell(platform!.web, developer, SLUG);
    await client.closed;
    expect(client.messages).to.deep.equal([{ type: 'closed', reason: 'refused', text: `The container of ${SLUG} is not running: start the instance, then open the shell again.` }]);
    expect(await shellEvents()).to.have.length(2);
  });
});
