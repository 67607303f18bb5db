import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'chai';
import type Docker from 'dockerode';
import pg from 'pg';
import { freePort } from '#shared/local/freePort.ts';
import { removeTenantAccount, tenantAccount } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { DockerRuntime } from '#services/executor/runtime/docker/dockerRuntime.ts';
import { STANDIN_IMAGE } from '#services/executor/runtime/docker/erpImage.ts';
import { ErpRunError, type ErpDatabaseServer, type ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import { engineOrSkip } from '#test/support/podman.ts';
import { createTestDatabase, testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { testStandinImage } from '#test/support/standinImage.ts';
import { waitUntil } from '#test/support/wait.ts';

const VERSION = '17.0';
const IMAGE = `${STANDIN_IMAGE}:{version}`;

/**
 * The docker runtime against podman's Docker API and the ERP stand-in image. The test cluster
 * listens on 127.0.0.1 only, so instances that must reach it use host networking; bridge mode is
 * checked for its wiring (network, port published on 127.0.0.1, routing labels).
 */
describe('docker runtime (podman Engine API, ERP stand-in image)', function () {
  this.timeout(60_000);
  let docker: Docker;
  let socketPath: string;
  let db: ErpDatabaseServer;
  let runtime: DockerRuntime;
  const exits: Array<{ slug: string; exitCode: number | null }> = [];
  const slugs: string[] = [];

  before(async function () {
    this.timeout(240_000);
    ({ docker, socketPath } = await engineOrSkip(this));
    await testStandinImage(docker, VERSION);
    const url = new URL((await testCluster()).url);
    db = { host: '127.0.0.1', port: Number(url.port), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
    runtime = new DockerRuntime({ socketPath, image: IMAGE, networkMode: 'host', instanceDomain: 'forja.test', stopGraceSeconds: 5 });
    runtime.onUnexpectedExit((slug, exitCode) => exits.push({ slug, exitCode }));
  });

  after(async () => {
    for (const slug of slugs) await runtime?.destroy(slug).catch(() => undefined);
    await runtime?.close();
  });

  async function newSpec(overrides: Partial<ErpRunSpec> = {}): Promise<ErpRunSpec> {
    const slug = `t${randomBytes(4).toString('hex')}`;
    slugs.push(slug);
    const root = runDir(`instance-${slug}`);
    onTeardown(async () => removeTenantAccount('instance', slug));
    const database = new URL(await createTestDatabase('erp')).pathname.slice(1);
    return {
      slug,
      erpVersion: VERSION,
      edition: 'community',
      database,
      db,
      sourceDir: null,
      addonsPath: [],
      dataDir: instanceDir(root, slug),
      logFile: instanceLogFile(root, slug, 'erp'),
      root,
      tenant: { kind: 'instance', slug },
      ...overrides,
    };
  }

  const byLabel = (slug: string) => ({ filters: { label: [`forja.instance=${slug}`] } });
  const answers = (url: string) => fetch(`${url}/web/health`).then((res) => res.status === 200, () => false);

  async function installedModules(database: string): Promise<string[]> {
    const client = new pg.Client({ ...db, database });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(`select name from ir_module_module where state = 'installed' order by name`);
      return rows.map((row) => row.name);
    } finally {
      await client.end();
    }
  }

  it('builds, installs modules once, serves, adopts, stops, restarts and destroys an instance', async () => {
    const spec = await newSpec();
    expect(runtime.usesStandin(VERSION)).to.equal(true);
    await runtime.build(spec);

    await runtime.runOnce(spec, ['-i', 'base,sale', '--stop-after-init']);
    expect(await installedModules(spec.database)).to.deep.equal(['base', 'sale']);
    expect(readFileSync(spec.logFile, 'utf8')).to.include('module sale: installed');
    expect(await docker.listContainers({ all: true, ...byLabel(spec.slug) })).to.deep.equal([]);

    const port = await freePort();
    const { url } = await runtime.start(spec, port);
    expect(url).to.equal(`http://127.0.0.1:${port}`);
    await waitUntil(() => answers(url), 'the ERP to answer /web/health', 30_000);
    const info = await docker.getContainer(`forja-${spec.slug}-erp`).inspect();
    expect(info.Config.Labels).to.include({ 'forja.instance': spec.slug, [`traefik.http.routers.forja-${spec.slug}.rule`]: `Host(\`${spec.slug}.forja.test\`)` });
    // Issue 10, item 7: not root, no capabilities, no privilege gain, bounded memory and processes.
    expect(info.Config.User).to.not.be.oneOf(['', 'root', '0', '0:0', undefined]);
    // Issue 24: the instance's own account, and only its writable leaves mounted (no folder root writes in, its logs least of all).
    if (process.getuid?.() === 0) {
      const account = tenantAccount('instance', spec.slug)!;
      expect(info.Config.User).to.equal(`${account.uid}:${account.gid}`);
      // An engine may add its own options after ro (podman: `ro,rprivate,rbind`).
      const writable = (info.HostConfig.Binds ?? []).map((bind) => bind.split(':')).filter(([, , options = '']) => !options.split(',').includes('ro')).map(([source]) => source!);
      expect(writable.map((source) => basename(source)).sort()).to.deep.equal(['addons', 'filestore', 'home', 'sessions']);
      for (const source of writable) expect(statSync(source).uid, source).to.equal(account.uid);
      await waitUntil(() => readFileSync(spec.logFile, 'utf8').includes('HTTP service'), 'the server\'s output, followed into its log', 10_000);
    }
    // Engines report CapDrop differently (docker: ALL; podman: the list it dropped): the ERP process's own capabilities tell.
    expect(/^CapEff:\s+(\w+)/m.exec(readFileSync(`/proc/${info.State.Pid}/status`, 'utf8'))?.[1]).to.match(/^0+$/);
    expect(info.HostConfig.SecurityOpt?.join(' ')).to.match(/no-new-privileges/);
    expect(info.HostConfig.Memory).to.equal(4096 * 1024 * 1024);
    expect(info.HostConfig.PidsLimit).to.equal(1024);
    // Issue 24 finding 9: the container reads Forja's configuration file (mounted read-only), so its database manager is closed.
    expect(info.HostConfig.Binds?.some((bind) => bind.startsWith(`${join(spec.dataDir, 'run')}:/etc/forja:ro`))).to.equal(true);
    const backup = await fetch(`${url}/web/database/backup`, { method: 'POST', body: new URLSearchParams({ master_pwd: 'admin', name: spec.database }) });
    expect(backup.status).to.equal(403);
    expect(await backup.text()).to.contain('The database manager has been disabled by the administrator');
    expect((await runtime.start(spec, port)).url).to.equal(url);
    expect((await runtime.running()).get(spec.slug)).to.equal(url);

    await runtime.stop(spec.slug);
    await runtime.stop(spec.slug);
    expect(await runtime.running()).to.deep.equal(new Map());
    expect(await answers(url)).to.equal(false);

    const again = await runtime.start(spec, port);
    expect(again.url, 'the kept port').to.equal(url);
    await waitUntil(() => answers(again.url), 'the restarted ERP to answer', 30_000);
    await runtime.destroy(spec.slug);
    expect(await docker.listContainers({ all: true, ...byLabel(spec.slug) })).to.deep.equal([]);
    expect(await docker.listNetworks(byLabel(spec.slug))).to.deep.equal([]);
    expect(await runtime.running()).to.deep.equal(new Map());
    await runtime.destroy(spec.slug);
    expect(exits.filter((exit) => exit.slug === spec.slug)).to.deep.equal([]);
  });

  it('rejects a failing one-shot run with ErpRunError carrying the exit code and the log tail', async () => {
    const spec = await newSpec();
    const error = await runtime.runOnce(spec, ['-i', 'Sale;drop', '--stop-after-init']).then(
      () => expect.fail('runOnce should have rejected'),
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(ErpRunError);
    expect((error as ErpRunError).exitCode).to.equal(2);
    expect((error as ErpRunError).logTail).to.include('odoo-bin (stand-in): -i: "Sale;drop" is not a module name');
    expect(await docker.listContainers({ all: true, ...byLabel(spec.slug) })).to.deep.equal([]);
  });

  it('kills and removes a one-shot run when its signal aborts', async () => {
    const spec = await newSpec();
    const controller = new AbortController();
    // Without --stop-after-init the stand-in keeps serving: only the abort ends this run.
    const run = runtime.runOnce(spec, ['--http-port', String(await freePort())], controller.signal);
    await waitUntil(() => existsSync(spec.logFile) && readFileSync(spec.logFile, 'utf8').includes('HTTP service'), 'the run to serve', 20_000);
    const started = Date.now();
    controller.abort();
    await run.then(
      () => expect.fail('an aborted run should reject'),
      (error: Error) => expect(error.name).to.equal('AbortError'),
    );
    expect(Date.now() - started, 'SIGTERM, SIGKILL after 3 s at most').to.be.below(5_000);
    expect(await docker.listContainers({ all: true, ...byLabel(spec.slug) })).to.deep.equal([]);
  });

  it('replaces a one-shot container an earlier executor left running, and stop and destroy remove one', async () => {
    const spec = await newSpec();
    const oneShot = docker.getContainer(`forja-${spec.slug}-oneshot`);
    /** A run that serves until removed: what a dead executor's run looks like to the next one (whether its promise resolves or rejects is nobody's concern). */
    const leftBehind = async () => {
      const run = runtime.runOnce(spec, ['--http-port', String(await freePort())]).catch(() => undefined);
      await waitUntil(() => oneShot.inspect().then((info) => info.State.Running, () => false), 'the one-shot container to run', 20_000);
      return { run };
    };
    const first = await leftBehind();
    await runtime.runOnce(spec, ['-i', 'base', '--stop-after-init']);
    expect(await installedModules(spec.database)).to.deep.equal(['base']);
    await first.run;
    expect(await docker.listContainers({ all: true, ...byLabel(spec.slug) })).to.deep.equal([]);

    const second = await leftBehind();
    await runtime.stop(spec.slug);
    await second.run;
    expect(await docker.listContainers({ all: true, ...byLabel(spec.slug) })).to.deep.equal([]);

    const third = await leftBehind();
    await runtime.destroy(spec.slug);
    await third.run;
    expect(await docker.listContainers({ all: true, ...byLabel(spec.slug) })).to.deep.equal([]);
  });

  it('says which image is missing and that Forja never pulls', async () => {
    const missing = new DockerRuntime({ socketPath, image: 'localhost/forja-no-such-erp:{version}', networkMode: 'host' });
    const spec = await newSpec();
    await missing.build(spec).then(
      () => expect.fail('build should have rejected'),
      (error: Error) => {
        expect(error.message).to.include(`localhost/forja-no-such-erp:${VERSION}`);
        expect(error.message).to.include('never pulls');
      },
    );
    expect(missing.usesStandin(VERSION)).to.equal(false);
    await missing.close();
  });

  it('reports a server killed from outside, not one it stopped', async () => {
    const [stopped, killed] = [await newSpec(), await newSpec()];
    const ports = [await freePort(), await freePort()] as const;
    const urls = [(await runtime.start(stopped, ports[0])).url, (await runtime.start(killed, ports[1])).url];
    for (const url of urls) await waitUntil(() => answers(url), 'both ERPs to answer', 30_000);

    await runtime.stop(stopped.slug);
    await docker.getContainer(`forja-${killed.slug}-erp`).kill({ signal: 'SIGKILL' });
    await waitUntil(() => exits.some((exit) => exit.slug === killed.slug), 'the unexpected exit to be reported', 15_000);
    // Events arrive in order: the stopped server's death came first and was not reported.
    expect(exits.filter((exit) => [stopped.slug, killed.slug].includes(exit.slug))).to.deep.equal([{ slug: killed.slug, exitCode: 137 }]);
    expect((await runtime.running()).has(killed.slug)).to.equal(false);

    const restarted = await runtime.start(killed, ports[1]);
    expect(restarted.url, 'a replaced server keeps the instance port').to.equal(urls[1]);
    await waitUntil(() => answers(restarted.url), 'the replaced ERP to answer', 30_000);
    await runtime.destroy(killed.slug);
    await runtime.destroy(stopped.slug);
  });

  it('bridge mode: a network per instance, the port published on 127.0.0.1 only, routing labels', async () => {
    const bridge = new DockerRuntime({ socketPath, image: IMAGE, networkMode: 'bridge', instanceDomain: 'forja.test' });
    try {
      const local = await newSpec();
      await bridge.start(local, await freePort()).then(
        () => expect.fail('a loopback database cannot work from a bridge network'),
        (error: Error) => expect(error.message).to.include('FORJA_DOCKER_NETWORK_MODE=host'),
      );
      // No database answers there: the wiring is what is checked here.
      const spec = await newSpec({ db: { ...db, host: 'db.forja.invalid' } });
      const { url } = await bridge.start(spec, await freePort());
      const info = await docker.getContainer(`forja-${spec.slug}-erp`).inspect();
      const [binding] = info.HostConfig.PortBindings?.['8069/tcp'] ?? [];
      expect(binding).to.deep.include({ HostIp: '127.0.0.1' });
      expect(url).to.equal(`http://127.0.0.1:${binding?.HostPort}`);
      expect(Object.keys(info.NetworkSettings.Networks)).to.deep.equal([`forja-${spec.slug}`]);
      expect(info.Config.Labels).to.include({
        [`traefik.http.services.forja-${spec.slug}.loadbalancer.server.port`]: '8069',
        'traefik.docker.network': `forja-${spec.slug}`,
      });
      expect((await docker.listNetworks(byLabel(spec.slug))).map((network) => network.Name)).to.deep.equal([`forja-${spec.slug}`]);
      await bridge.destroy(spec.slug);
      expect(await docker.listContainers({ all: true, ...byLabel(spec.slug) })).to.deep.equal([]);
      expect(await docker.listNetworks(byLabel(spec.slug))).to.deep.equal([]);
    } finally {
      await bridge.close();
    }
  });
});
