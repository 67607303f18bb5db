import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type Docker from 'dockerode';
import { freePort } from '#shared/local/freePort.ts';
import { removeTenantAccount, tenantAccount } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { DockerRuntime } from '#services/executor/runtime/docker/dockerRuntime.ts';
import { erpContainerName } from '#services/executor/runtime/docker/erpContainer.ts';
import { OFFICIAL_IMAGE_UID } from '#services/executor/runtime/docker/standinImage.ts';
import { STANDIN_IMAGE } from '#services/executor/runtime/docker/erpImage.ts';
import type { ErpDatabaseServer, ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import { engineOrSkip } from '#test/support/podman.ts';
import { createTestDatabase, testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { testStandinImage } from '#test/support/standinImage.ts';
import { waitUntil } from '#test/support/wait.ts';

const exec = promisify(execFile);
const FIXTURE = new URL('./fixtures/dockerRuntimeAsUser.ts', import.meta.url).pathname;

/**
 * Issue 25, item 7: the docker runtime with an image laid out like the official one (odoo/docker
 * `<version>/Dockerfile` and `entrypoint.sh`, imitated by the stand-in image). The command line
 * is read where `ps` on the host reads it, /proc/<pid>/cmdline.
 */
describe('docker runtime with the official image\'s layout (user 101, volumes, entrypoint)', function () {
  this.timeout(90_000);
  let docker: Docker;
  let socketPath: string;
  let db: ErpDatabaseServer;
  const runtimes: DockerRuntime[] = [];
  const started: Array<{ runtime: DockerRuntime; slug: string }> = [];

  before(async function () {
    this.timeout(240_000);
    ({ docker, socketPath } = await engineOrSkip(this));
    const url = new URL((await testCluster()).url);
    db = { host: '127.0.0.1', port: Number(url.port), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  });

  after(async () => {
    for (const { runtime, slug } of started) await runtime.destroy(slug).catch(() => undefined);
    for (const runtime of runtimes) await runtime.close();
  });

  function runtimeFor(): DockerRuntime {
    const runtime = new DockerRuntime({ socketPath, image: `${STANDIN_IMAGE}:{version}`, networkMode: 'host', stopGraceSeconds: 3 });
    runtimes.push(runtime);
    return runtime;
  }

  async function newSpec(erpVersion: string): Promise<ErpRunSpec> {
    const slug = `o${randomBytes(4).toString('hex')}`;
    const root = runDir(`instance-${slug}`);
    onTeardown(async () => removeTenantAccount('instance', slug));
    const database = new URL(await createTestDatabase('erp')).pathname.slice(1);
    return { slug, erpVersion, edition: 'community', database, db, sourceDir: null, addonsPath: [], dataDir: instanceDir(root, slug), logFile: instanceLogFile(root, slug, 'erp'), root, tenant: { kind: 'instance', slug } };
  }

  /** Lets every account reach the test engine's socket for one test (it is the test's private engine), and puts it back. */
  async function reachableBy(socket: string): Promise<() => void> {
    const changed = [socket, dirname(socket)].map((path) => ({ path, mode: statSync(path).mode & 0o7777 }));
    chmodSync(dirname(socket), changed[1]!.mode | 0o011);
    chmodSync(socket, 0o666);
    return () => {
      for (const { path, mode } of changed) chmodSync(path, mode);
    };
  }

  const commandLineOf = async (slug: string) => {
    const { State: state } = await docker.getContainer(erpContainerName(slug)).inspect();
    return readFileSync(`/proc/${state.Pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  };

  it('is laid out as the official image: user odoo (101), its entrypoint, the two volumes, ODOO_RC', async () => {
    const info = await docker.getImage(await testStandinImage(docker, '17.0')).inspect();
    expect(info.Config.User).to.equal('odoo');
    expect(info.Config.Entrypoint).to.deep.equal(['/entrypoint.sh']);
    expect(info.Config.Cmd).to.deep.equal(['odoo']);
    expect(Object.keys(info.Config.Volumes ?? {}).sort()).to.deep.equal(['/mnt/extra-addons', '/var/lib/odoo']);
    expect(info.Config.Env).to.include('ODOO_RC=/etc/odoo/odoo.conf');
    expect(OFFICIAL_IMAGE_UID).to.equal(101);
  });

  for (const version of ['17.0', '19.0']) {
    it(`${version}: runs the ERP as the instance's account with no database option on its command line, and serves the instance's database`, async function () {
      if (process.getuid?.() !== 0) this.skip();
      await testStandinImage(docker, version);
      const runtime = runtimeFor();
      const spec = await newSpec(version);
      started.push({ runtime, slug: spec.slug });
      await runtime.runOnce(spec, ['-i', 'base', '--stop-after-init']);
      const { url } = await runtime.start(spec, await freePort());
      await waitUntil(() => fetch(`${url}/web/login?db=${spec.database}`).then((res) => res.status === 200, () => false), 'the ERP to serve /web/login', 30_000);

      const commandLine = await commandLineOf(spec.slug);
      expect(commandLine.join(' ')).to.include(`-c /etc/forja/erp.conf -d ${spec.database}`);
      expect(commandLine.filter((word) => word.startsWith('--db_')), 'database options').to.deep.equal([]);
      expect(commandLine, 'the password').not.to.include(db.password);
      const info = await docker.getContainer(erpContainerName(spec.slug)).inspect();
      const account = tenantAccount('instance', spec.slug)!;
      expect(info.Config.User).to.equal(`${account.uid}:${account.gid}`);
      expect(info.Config.Env?.join('\n')).not.to.include(db.password);
      // No anonymous volume per start for the image's two VOLUMEs: a tmpfs stands in.
      expect(Object.keys(info.HostConfig.Tmpfs ?? {}).sort()).to.deep.equal(['/mnt/extra-addons', '/var/lib/odoo']);
      expect((info.Mounts ?? []).filter((mount) => mount.Type === 'volume')).to.deep.equal([]);
    });
  }

  it('not root: runs the ERP as the executor\'s own account, which wrote the 0600 file and the folders, not as the image\'s 101', async function () {
    if (process.getuid?.() !== 0) this.skip(); // root makes the ordinary account the executor runs as here
    await testStandinImage(docker, '17.0');
    const executor = tenantAccount('instance', `x${randomBytes(4).toString('hex')}`)!;
    onTeardown(async () => removeTenantAccount('instance', executor.name.slice(3)));
    const spec = { ...(await newSpec('17.0')), root: runDir('nonroot-executor') };
    Object.assign(spec, { dataDir: instanceDir(spec.root, spec.slug), logFile: instanceLogFile(spec.root, spec.slug, 'erp') });
    chownSync(spec.root, executor.uid, executor.gid);
    const restore = await reachableBy(socketPath);
    const runtime = runtimeFor();
    started.push({ runtime, slug: spec.slug });
    try {
      const port = await freePort();
      const { stdout } = await exec('setpriv', ['--reuid', String(executor.uid), '--regid', String(executor.gid), '--clear-groups', '--', process.execPath, '--import', 'tsx', FIXTURE, JSON.stringify({ socketPath, image: `${STANDIN_IMAGE}:{version}`, port, spec })], {
        env: { ...process.env, HOME: spec.root },
        timeout: 60_000,
      });
      const { url, uid } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { url: string; uid: number };
      expect(uid).to.equal(executor.uid);
      await waitUntil(() => fetch(`${url}/web/login?db=${spec.database}`).then((res) => res.status === 200, () => false), 'the ERP to serve /web/login', 30_000);
      const info = await docker.getContainer(erpContainerName(spec.slug)).inspect();
      expect(info.Config.User).to.equal(`${executor.uid}:${executor.gid}`);
      const config = statSync(join(spec.dataDir, 'run', 'erp.conf'));
      expect([config.uid, config.mode & 0o777]).to.deep.equal([executor.uid, 0o600]);
      expect((await commandLineOf(spec.slug)).filter((word) => word.startsWith('--db_'))).to.deep.equal([]);
    } finally {
      restore();
    }
  });

  it('guard: the image\'s own entrypoint on 17.0 would put the database password on the ERP\'s command line', async function () {
    if (process.getuid?.() !== 0) this.skip();
    await testStandinImage(docker, '17.0');
    const runtime = runtimeFor();
    const spec = await newSpec('17.0');
    started.push({ runtime, slug: spec.slug });
    const { url } = await runtime.start(spec, await freePort());
    await waitUntil(() => fetch(`${url}/web/health`).then((res) => res.ok, () => false), 'Forja\'s container to answer', 30_000);
    // The same container, but through the image's ENTRYPOINT, as Forja ran it before.
    const forjas = await docker.getContainer(erpContainerName(spec.slug)).inspect();
    await runtime.stop(spec.slug);
    const port = await freePort();
    const cmd = forjas.Config.Cmd!.map((word) => (word === String(new URL(url).port) ? String(port) : word));
    const container = await docker.createContainer({
      name: `forja-${spec.slug}-guard`,
      Image: forjas.Config.Image,
      Cmd: ['odoo', ...cmd],
      Env: forjas.Config.Env,
      User: forjas.Config.User,
      Labels: { 'forja.instance': spec.slug },
      HostConfig: { NetworkMode: 'host', Binds: forjas.HostConfig.Binds, Tmpfs: forjas.HostConfig.Tmpfs },
    });
    try {
      await container.start();
      await waitUntil(() => fetch(`http://127.0.0.1:${port}/web/health`).then((res) => res.ok, () => false), 'the entrypoint\'s ERP to answer', 40_000);
      const { State: state } = await container.inspect();
      const commandLine = readFileSync(`/proc/${state.Pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      expect(commandLine.slice(-2)).to.deep.equal(['--db_password', db.password]);
    } finally {
      await container.remove({ force: true, v: true });
    }
  });
});
