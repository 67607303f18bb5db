import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import WebSocket from 'ws';
import { freePort } from '#shared/local/freePort.ts';
import { STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';

const BIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));

/** The stand-in run as a real ERP of each version would behave: addons path, demo data, readiness, workers, proxy mode. */
describe('ERP stand-in as strict as the real ERP', function () {
  this.timeout(60_000);
  const home = runDir('standin-strict');
  const children: ChildProcess[] = [];
  let pgPort: string;
  let password: string;
  let urlFor: (database: string) => string;
  const connection = (port = pgPort) => ['--db_host', '127.0.0.1', '--db_port', port, '--db_user', 'postgres', '--db_password', password];

  before(async () => {
    const cluster = await testCluster();
    const parsed = new URL(cluster.url);
    pgPort = parsed.port;
    password = decodeURIComponent(parsed.password);
    urlFor = cluster.urlFor;
  });
  after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  const run = (version: string, args: string[]) =>
    spawnSync(BIN, [...args, ...connection()], { encoding: 'utf8', env: { ...process.env, HOME: home, FORJA_STANDIN_VERSION: version } });

  async function query<T extends pg.QueryResultRow>(database: string, sql: string): Promise<T[]> {
    const client = new pg.Client(urlFor(database));
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  }
  const installed = async (database: string) => (await query<{ name: string }>(database, `select name from ir_module_module where state = 'installed' order by name`)).map((row) => row.name);

  const custom = join(home, 'custom');
  mkdirSync(join(custom, 'acme'), { recursive: true });
  writeFileSync(join(custom, 'acme', '__init__.py'), '');
  writeFileSync(join(custom, 'acme', '__manifest__.py'), "{'name': 'Acme', 'depends': ['sale']}\n");
  const empty = join(home, 'empty');
  mkdirSync(join(empty, 'docs'), { recursive: true });

  describe('addons path', () => {
    for (const version of ['16.0', '17.0']) {
      it(`${version}: --addons-path replaces the default, so the standard modules are known only with their folder on it`, async () => {
        const database = `strict_path_${version.replace('.', '')}_${Date.now()}`;
        const alone = run(version, ['-d', database, '--addons-path', custom, '-i', 'sale,acme', '--stop-after-init']);
        expect(alone.status, alone.stderr).to.equal(0);
        expect(alone.stdout).to.include('invalid module names, ignored: sale');
        expect(await installed(database)).to.deep.equal(['acme', 'base']);

        const both = run(version, ['-d', database, '--addons-path', `${custom},${STANDIN_STANDARD_ADDONS}`, '-i', 'sale', '--stop-after-init']);
        expect(both.status, both.stderr).to.equal(0);
        expect(await installed(database)).to.deep.equal(['acme', 'base', 'sale']);
      });
    }

    it("17.0: the configuration file's addons_path follows the same rule", async () => {
      const database = `strict_rcpath_${Date.now()}`;
      const conf = join(home, 'path.conf');
      writeFileSync(conf, `[options]\naddons_path = ${custom}\n`);
      const result = run('17.0', ['-c', conf, '-d', database, '-i', 'sale', '--stop-after-init']);
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.include('invalid module names, ignored: sale');
      expect(await installed(database)).to.deep.equal(['base']);
    });

    it('18.0 and 19.0 add the defaults back', async () => {
      for (const version of ['18.0', '19.0']) {
        const database = `strict_path_${version.replace('.', '')}_${Date.now()}`;
        const result = run(version, ['-d', database, '--addons-path', custom, '-i', 'sale,acme', '--stop-after-init']);
        expect(result.status, result.stderr).to.equal(0);
        expect(await installed(database)).to.deep.equal(['acme', 'base', 'sale']);
      }
    });

    it('16.0–18.0 stop with exit 2 on a path entry holding no module; 19.0 warns and skips it', async () => {
      for (const version of ['16.0', '17.0', '18.0']) {
        const result = run(version, ['-d', 'never_created', '--addons-path', `${custom},${empty}`, '-i', 'acme', '--stop-after-init']);
        expect(result.status, version).to.equal(2);
        expect(result.stderr).to.match(new RegExp(`^odoo-bin \\(stand-in\\): option --addons-path: .*'${empty}'.*(not a valid addons directory|valid Addons Directory)`));
      }
      const database = `strict_skip_${Date.now()}`;
      const result = run('19.0', ['-d', database, '--addons-path', `${empty},${custom}`, '-i', 'acme', '--stop-after-init']);
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.include(`WARNING ${database} odoo.tools.config: option --addons-path, invalid addons directory '${empty}', skipped`);
      expect(await installed(database)).to.deep.equal(['acme', 'base']);
    });
  });

  describe('demo data', () => {
    const demo = async (database: string) => ({
      modules: (await query<{ name: string }>(database, `select name from ir_module_module where state = 'installed' and demo order by name`)).map((row) => row.name),
      partners: (await query<{ name: string }>(database, 'select name from res_partner order by id')).map((row) => row.name),
    });

    it('16.0–18.0 install demo data unless without_demo, and a later install inherits the database’s choice', async () => {
      for (const version of ['16.0', '18.0']) {
        const database = `strict_demo_${version.replace('.', '')}_${Date.now()}`;
        expect(run(version, ['-d', database, '-i', 'sale', '--stop-after-init']).status).to.equal(0);
        expect(await demo(database)).to.deep.equal({ modules: ['base', 'sale'], partners: ['Azure Interior'] });
        expect(run(version, ['-d', database, '-i', 'crm', '--stop-after-init']).status).to.equal(0);
        expect((await demo(database)).modules).to.deep.equal(['base', 'crm', 'sale']);
      }
      const conf = join(home, 'nodemo.conf');
      writeFileSync(conf, '[options]\nwithout_demo = all\n');
      const database = `strict_nodemo_${Date.now()}`;
      expect(run('17.0', ['-c', conf, '-d', database, '-i', 'sale', '--stop-after-init']).status).to.equal(0);
      expect(await demo(database)).to.deep.equal({ modules: [], partners: [] });
      expect(run('17.0', ['-d', database, '-i', 'crm', '--stop-after-init']).status, 'a database created without demo data stays without').to.equal(0);
      expect((await demo(database)).modules).to.deep.equal([]);
    });

    it('19.0 installs none unless --with-demo, an option older versions refuse', async () => {
      const without = `strict_demo19_${Date.now()}`;
      expect(run('19.0', ['-d', without, '-i', 'sale', '--stop-after-init']).status).to.equal(0);
      expect(await demo(without)).to.deep.equal({ modules: [], partners: [] });
      const withDemo = `strict_withdemo19_${Date.now()}`;
      expect(run('19.0', ['-d', withDemo, '-i', 'sale', '--with-demo', '--stop-after-init']).status).to.equal(0);
      expect(await demo(withDemo)).to.deep.equal({ modules: ['base', 'sale'], partners: ['Azure Interior'] });
      const refused = run('17.0', ['-d', 'never_created', '--with-demo', '--stop-after-init']);
      expect(refused.status).to.equal(2);
      expect(refused.stderr.trim()).to.equal('odoo-bin (stand-in): no such option: --with-demo');
    });
  });

  /** Starts a serving stand-in; resolves once HTTP answers (/web/health), not once the database is loaded. */
  async function serve(version: string, args: string[], dbPort = pgPort) {
    const database = `strict_http_${Date.now()}`;
    const port = await freePort();
    const child = spawn(BIN, ['-d', database, '--http-port', String(port), ...connection(dbPort), ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, HOME: home, FORJA_STANDIN_VERSION: version },
    });
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    await waitUntil(() => fetch(`${base}/web/health`).then((r) => r.ok, () => false), 'the stand-in to answer', 20_000);
    return { database, base, port, child };
  }
  const loaded = (base: string) => waitUntil(() => fetch(`${base}/web/login`).then((r) => r.ok, () => false), 'the database to be loaded', 20_000);

  describe('readiness', () => {
    it('answers /web/health while the database loads; /web/login waits for it and then answers 200', async () => {
      const database = `strict_ready_${Date.now()}`;
      expect(run('17.0', ['-d', database, '--stop-after-init']).status).to.equal(0);
      // Hold the module registry: the stand-in's loading blocks on it, as a long module update would.
      const holder = new pg.Client(urlFor(database));
      await holder.connect();
      await holder.query('begin');
      await holder.query('lock table ir_module_module in access exclusive mode');
      const port = await freePort();
      const child = spawn(BIN, ['-d', database, '--http-port', String(port), ...connection()], { stdio: 'ignore', env: { ...process.env, HOME: home, FORJA_STANDIN_VERSION: '17.0' } });
      children.push(child);
      const base = `http://127.0.0.1:${port}`;
      try {
        await waitUntil(() => fetch(`${base}/web/health`).then((r) => r.ok, () => false), 'HTTP to answer', 20_000);
        const login = fetch(`${base}/web/login`).then((r) => r.status);
        const early = await Promise.race([login, new Promise((resolve) => setTimeout(() => resolve('waiting'), 1_500))]);
        expect(early, '/web/login before the database is loaded').to.equal('waiting');
        await holder.query('commit');
        expect(await login).to.equal(200);
      } finally {
        await holder.end();
        child.kill('SIGTERM');
      }
    });

    it('17.0+: /web/health?db_server_status=1 answers 500 with status fail once the database server is unreachable; 16.0 ignores it', async () => {
      // The stand-in reaches PostgreSQL through a TCP relay the test can cut.
      for (const version of ['17.0', '16.0']) {
        const relayPort = await freePort();
        const sockets = new Set<Socket>();
        const cut = await startRelay(relayPort, sockets);
        const erp = await serve(version, [], String(relayPort));
        await loaded(erp.base);
        const up = await fetch(`${erp.base}/web/health?db_server_status=1`);
        expect(up.status).to.equal(200);
        expect(await up.json()).to.include({ status: 'pass' });
        await cut();
        const down = await fetch(`${erp.base}/web/health?db_server_status=1`);
        if (version === '17.0') {
          expect(down.status).to.equal(500);
          expect(await down.json()).to.include({ status: 'fail', db_server_status: false });
        } else {
          expect(down.status).to.equal(200);
        }
        expect((await fetch(`${erp.base}/web/health`)).status, 'plain /web/health does not ask the database server').to.equal(200);
        erp.child.kill('SIGTERM');
      }
    });
  });

  /** A TCP relay from `port` to the test's PostgreSQL; the returned function closes it and every relayed connection. */
  async function startRelay(port: number, sockets: Set<Socket>): Promise<() => Promise<void>> {
    const relay = createServer((inbound) => {
      const outbound = connect(Number(pgPort), '127.0.0.1');
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve));
    return () =>
      new Promise<void>((resolve) => {
        relay.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
  }

  describe('workers and /websocket', () => {
    const upgrade = (url: string) =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(url);
        socket.once('open', () => {
          socket.terminate();
          resolve(101);
        });
        socket.once('unexpected-response', (_request, response) => {
          resolve(response.statusCode ?? 0);
          socket.terminate();
        });
        socket.once('error', reject);
      });

    it('threaded (workers = 0): /websocket upgrades on the HTTP port', async () => {
      const erp = await serve('17.0', []);
      expect(await upgrade(`ws://127.0.0.1:${erp.port}/websocket?version=17.0-1`)).to.equal(101);
      expect((await fetch(`${erp.base}/websocket`)).status, 'a plain GET fails the handshake').to.equal(400);
      erp.child.kill('SIGTERM');
    });

    it('workers > 0: the HTTP port cannot bind the websocket (500); the gevent port upgrades it', async () => {
      const geventPort = await freePort();
      const erp = await serve('17.0', ['--workers', '2', '--gevent-port', String(geventPort)]);
      expect(await upgrade(`ws://127.0.0.1:${erp.port}/websocket?version=17.0-1`)).to.equal(500);
      expect(await upgrade(`ws://127.0.0.1:${geventPort}/websocket?version=17.0-1`)).to.equal(101);
      expect((await fetch(`http://127.0.0.1:${geventPort}/web/health`)).status, 'the gevent worker serves the other routes too').to.equal(200);
      await loaded(erp.base);
      const exited = new Promise<number | null>((resolve) => erp.child.once('exit', resolve));
      erp.child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    });
  });

  describe('proxy mode', () => {
    const headers = { 'x-forwarded-host': 'erp.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' };

    it('with proxy_mode and X-Forwarded-Host, builds https URLs for the forwarded host and sees the forwarded client', async () => {
      const conf = join(home, 'proxy.conf');
      writeFileSync(conf, '[options]\nproxy_mode = True\n');
      const erp = await serve('17.0', ['-c', conf]);
      await loaded(erp.base);
      expect(await (await fetch(`${erp.base}/web/standin/request`, { headers })).json()).to.deep.equal({ urlRoot: 'https://erp.example/', remoteAddr: '203.0.113.9' });
      expect(await (await fetch(`${erp.base}/web/login`, { headers })).text()).to.include('<base href="https://erp.example/">');
      const { 'x-forwarded-host': _host, ...withoutHost } = headers;
      expect(await (await fetch(`${erp.base}/web/standin/request`, { headers: withoutHost })).json()).to.deep.equal({ urlRoot: `http://127.0.0.1:${erp.port}/`, remoteAddr: '127.0.0.1' });
      erp.child.kill('SIGTERM');
    });

    it('without proxy_mode, ignores the forwarded headers: http:// and the proxy as the client', async () => {
      const erp = await serve('17.0', []);
      await loaded(erp.base);
      expect(await (await fetch(`${erp.base}/web/login`, { headers })).text()).to.include(`<base href="http://127.0.0.1:${erp.port}/">`);
      expect(await (await fetch(`${erp.base}/web/standin/request`, { headers })).json()).to.deep.equal({ urlRoot: `http://127.0.0.1:${erp.port}/`, remoteAddr: '127.0.0.1' });
      erp.child.kill('SIGTERM');
    });
  });
});
