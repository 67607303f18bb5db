import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { WebSocket } from 'ws';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { erpRouter } from '#services/control-plane/erpRouter/erpRouter.ts';
import { startErpRouterProcess } from '#services/control-plane/erpRouter/erpRouterProcess.ts';
import { listen } from '#shared/http/listen.ts';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { silentLogger } from '#shared/log.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { instanceRecorder, requestWithHost, tinyErp } from '#test/support/erpStandins.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { waitUntil } from '#test/support/wait.ts';

describe('ERP router (a stable address per instance)', function () {
  this.timeout(30_000);
  let platform: TestPlatform;
  let router: ForjaProcess;
  let port: number;
  const erps: Server[] = [];

  const readModel = () => platform.infra.db.withSchema('read_model');
  const streamOf = async (slug: string): Promise<RecordedEvent[]> => (await platform.infra.store.readStream(`instance-${slug}`)).events;

  const instances = () => instanceRecorder(platform.infra.store, readModel());
  const runningInstance = (slug: string, url: string, geventUrl?: string) => instances().running(slug, url, geventUrl);

  before(async () => {
    platform = await startTestPlatform();
    router = await startErpRouterProcess(platform.infra, { ...platform.config, FORJA_ERP_ROUTER_PORT: 0 }, silentLogger);
    port = Number(new URL(router.url!).port);
  });
  after(async () => {
    await router?.stop();
    for (const server of erps) server.close();
    await platform?.stop();
  });

  it('serves two instances by host name, bodies and the Host passed through, and an unknown host gets 404', async () => {
    const [a, b] = [await tinyErp('a'), await tinyErp('b')];
    erps.push(a.server, b.server);
    await runningInstance('acme-a', a.url);
    await runningInstance('acme-b', b.url);

    const fromA = await requestWithHost(port, `acme-a.localhost:${port}`, { method: 'POST', path: '/web/login?x=1', body: 'login=ana' });
    expect(fromA.status).to.equal(200);
    expect(fromA.text).to.contain('ERP a').and.contain(`POST /web/login?x=1 host=acme-a.localhost:${port} body=login=ana`);
    const fromB = await requestWithHost(port, `ACME-B.localhost:${port}`);
    expect(fromB.text).to.contain('ERP b');

    for (const host of [`nobody.localhost:${port}`, `acme-a.example.com:${port}`, `127.0.0.1:${port}`, `a.b.localhost:${port}`]) {
      const unknown = await requestWithHost(port, host);
      expect(unknown.status, host).to.equal(404);
      expect(unknown.text).to.contain('No instance here');
    }
  });

  it('passes WebSockets through to the instance, and refuses one for an unknown host', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/websocket`, { headers: { host: `acme-b.localhost:${port}` } });
      socket.on('open', () => socket.send('ping'));
      socket.on('message', (data) => {
        resolve(String(data));
        socket.close();
      });
      socket.on('error', reject);
    });
    expect(answer).to.equal('b /websocket ping');
    const refused = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/websocket`, { headers: { host: `nobody.localhost:${port}` } });
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('error', () => resolve(-1));
    });
    expect(refused).to.equal(404);
  });

  it('sends /websocket of an ERP with workers to its gevent port, and everything else to its HTTP port (issue 25)', async () => {
    const [http, gevent] = [await tinyErp('http'), await tinyErp('gevent')];
    erps.push(http.server, gevent.server);
    await runningInstance('acme-workers', http.url, gevent.url);
    const host = `acme-workers.localhost:${port}`;
    const talk = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers: { host } });
        socket.on('open', () => socket.send('ping'));
        socket.on('message', (data) => {
          resolve(String(data));
          socket.close();
        });
        socket.on('error', reject);
      });
    expect(await talk('/websocket?version=17.0-1')).to.equal('gevent /websocket?version=17.0-1 ping');
    expect(await talk('/other-socket'), 'another WebSocket stays on the HTTP port').to.equal('http /other-socket ping');
    expect((await requestWithHost(port, host, { path: '/web/login' })).text).to.contain('ERP http');
    expect((await requestWithHost(port, host, { path: '/websocket' })).text, 'a plain request to /websocket too').to.contain('ERP gevent');
    expect((await getInstance(readModel(), 'acme-workers'))!).to.include({ gevent_url: gevent.url, gevent_port: 21001 });
  });

  it("never passes the ERP's database manager on, however the path is spelled, nor a WebSocket to it", async () => {
    const erp = await tinyErp('dbm');
    erps.push(erp.server);
    const seen: string[] = [];
    erp.server.prependListener('request', (req: { url?: string }) => seen.push(req.url ?? ''));
    await runningInstance('acme-dbm', erp.url);
    const host = `acme-dbm.localhost:${port}`;
    const tricks = ['/web/database/backup', '/web/database/drop', '/web/database/manager', '/web/database/list', '//web/database/backup', '/web/database/../database/drop', '/web%2Fdatabase%2Fbackup', '/web/%64atabase/drop', '/WEB/DATABASE/backup', '/fr_BE/web/database/backup', '/web\\database\\drop'];
    for (const method of ['POST', 'GET', 'PUT', 'DELETE']) {
      for (const path of tricks) {
        const answer = await requestWithHost(port, host, { method, path, body: 'master_pwd=admin&name=acme_dbm' });
        expect(answer.status, `${method} ${path}`).to.equal(404);
        expect(answer.text).to.contain("database manager is closed");
      }
    }
    const refused = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/web/database/manager`, { headers: { host } });
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('error', () => resolve(-1));
    });
    expect(refused).to.equal(404);
    expect(seen, 'requests that reached the ERP').to.deep.equal([]);
    const login = await requestWithHost(port, host, { path: '/web/login?redirect=/web/database/manager' });
    expect(login.status).to.equal(200);
    expect(seen).to.deep.equal(['/web/login?redirect=/web/database/manager']);
  });

  it('records requests as visits for the sleep sweep, at most one per few minutes', async () => {
    const visits = async () => (await streamOf('acme-a')).filter((event) => event.type === 'InstanceVisited');
    await waitUntil(async () => (await visits()).length === 1, 'the first visit recorded');
    const visit = (await visits())[0]!;
    expect(visit.metadata).to.include({ actor: 'system', via: 'erp-router' });
    await waitForPosition(readModel(), 'instance_detail', visit.globalPosition);
    expect((await getInstance(readModel(), 'acme-a'))!.last_action_at.toISOString()).to.equal(new Date(visit.metadata.at).toISOString());
    for (let i = 0; i < 5; i += 1) expect((await requestWithHost(port, `acme-a.localhost:${port}`)).status).to.equal(200);
    expect(await visits()).to.have.length(1);
  });

  it('wakes a sleeping instance with the waiting page, then serves it once it runs', async () => {
    const erp = await tinyErp('sleepy');
    erps.push(erp.server);
    const history = await runningInstance('acme-sleepy', erp.url);
    await instances().sleeping(history);

    const waiting = await requestWithHost(port, `acme-sleepy.localhost:${port}`);
    expect(waiting.status).to.equal(503);
    expect(waiting.headers['retry-after']).to.equal('3');
    expect(waiting.text).to.contain('<meta http-equiv="refresh" content="3">').and.contain('acme-sleepy is waking up');
    const starts = async () => (await streamOf('acme-sleepy')).filter((event) => event.type === 'InstanceActionRequested' && (event.data as { action: string }).action === 'start');
    const [start] = await starts();
    expect(start, 'a start was requested').to.not.equal(undefined);
    expect(start!.metadata).to.include({ actor: 'system', via: 'erp-router' });
    await waitForPosition(readModel(), 'instance_detail', start!.globalPosition);

    // Reloads during the start wait on the same page and ask for nothing more.
    const again = await requestWithHost(port, `acme-sleepy.localhost:${port}`);
    expect(again.status).to.equal(503);
    expect(again.text).to.contain('waking up');
    expect(await starts()).to.have.length(1);

    // The executor's part: the start job runs the ERP again.
    const jobId = (start!.data as { jobId: string }).jobId;
    await instances().started(history, jobId, erp.url);
    const awake = await requestWithHost(port, `acme-sleepy.localhost:${port}`);
    expect(awake.status).to.equal(200);
    expect(awake.text).to.contain('ERP sleepy');
  });

  it('says so for a stopped or destroyed instance, and wakes neither', async () => {
    const erp = await tinyErp('gone');
    erps.push(erp.server);
    const history = await runningInstance('acme-gone', erp.url);
    const stopJob = randomUUID();
    await instances().record([history.action('stop', stopJob), ...history.ranJob(stopJob, ['stop'], 'stop', 'stopped')]);
    const stopped = await requestWithHost(port, `acme-gone.localhost:${port}`);
    expect(stopped.status).to.equal(503);
    expect(stopped.text).to.contain('acme-gone is stopped').and.not.contain('http-equiv="refresh"');
    const destroyJob = randomUUID();
    await instances().record([history.action('destroy', destroyJob), ...history.ranJob(destroyJob, ['stop', 'drop_database', 'remove_files'], 'destroy', 'destroyed')]);
    const destroyed = await requestWithHost(port, `acme-gone.localhost:${port}`);
    expect(destroyed.status).to.equal(410);
    expect(destroyed.text).to.contain('acme-gone is destroyed');
    const requested = (await streamOf('acme-gone')).filter((event) => event.type === 'InstanceActionRequested').map((event) => (event.data as { action: string }).action);
    expect(requested).to.deep.equal(['stop', 'destroy']);
  });

  it('answers 500 and drops a WebSocket when it cannot read the instance read model', async () => {
    const broken = erpRouter({ readModel: platform.infra.db.withSchema('no_such_schema') as never, domain: 'localhost', wake: async () => {}, onVisit: () => {}, logger: silentLogger });
    const listening = await listen(broken.handle, '127.0.0.1', 0);
    listening.server.on('upgrade', broken.upgrade);
    try {
      const brokenPort = Number(new URL(listening.url).port);
      const answer = await requestWithHost(brokenPort, `acme-a.localhost:${brokenPort}`);
      expect(answer.status).to.equal(500);
      expect(answer.text).to.equal('The ERP router failed; see the Forja log.\n');
      const closed = await new Promise<string>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${brokenPort}/websocket`, { headers: { host: `acme-a.localhost:${brokenPort}` } });
        socket.on('error', (error) => resolve(error.message));
        socket.on('open', () => resolve('open'));
      });
      expect(closed).to.match(/socket hang up|ECONNRESET/);
    } finally {
      await listening.close();
    }
  });

  it('starts nothing with FORJA_ERP_ROUTER=false', async () => {
    const off = await startErpRouterProcess(platform.infra, { ...platform.config, FORJA_ERP_ROUTER: false, FORJA_ERP_ROUTER_PORT: port }, silentLogger);
    expect(off.url).to.equal(undefined);
    expect(off.describe()).to.deep.equal(['off (FORJA_ERP_ROUTER=false)']);
    await off.stop();
  });

  it('answers 502 with a page when the running ERP does not answer', async () => {
    const erp = await tinyErp('dead');
    await runningInstance('acme-dead', erp.url);
    await new Promise((resolve) => erp.server.close(resolve));
    const dead = await requestWithHost(port, `acme-dead.localhost:${port}`);
    expect(dead.status).to.equal(502);
    expect(dead.text).to.contain('acme-dead does not answer');
  });
});
