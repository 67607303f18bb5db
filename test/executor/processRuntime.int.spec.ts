import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { freePort } from '#shared/local/freePort.ts';
import { removeTenantAccount, tenantAccountName } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { erpConfigFile } from '#services/executor/runtime/erpConfigFile.ts';
import { ProcessRuntime, type ProcessRuntimeOptions } from '#services/executor/runtime/process/processRuntime.ts';
import { pidFilePath, readPidFile, writePidFile } from '#services/executor/runtime/process/pidFile.ts';
import { ErpRunError, type ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { waitUntil } from '#test/support/wait.ts';

/** Processes whose command line runs the ERP on `database`: what must be gone at the end. */
function erpPids(database: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv.some((arg, index) => arg === '-d' && argv[index + 1] === database);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const answersHealth = (url: string) => fetch(`${url}/web/health`).then((response) => response.ok, () => false);

describe('process runtime (real ERP stand-in, real PostgreSQL)', function () {
  this.timeout(60_000);
  const runtimes: ProcessRuntime[] = [];
  let root: string;
  let databaseUrl: string;
  let spec: ErpRunSpec;
  /** The instance's kept port, as the start step passes it. */
  let port: number;

  /** A runtime as one executor process would have it; several of them simulate restarts. */
  const runtime = (options: Partial<ProcessRuntimeOptions> = {}) => {
    const made = new ProcessRuntime({ dataDir: root, stopGraceMs: 3_000, pollIntervalMs: 50, ...options });
    runtimes.push(made);
    return made;
  };
  const pidFile = () => readPidFile(pidFilePath(root, spec.slug));

  before(async () => {
    databaseUrl = await createTestDatabase('erp');
    port = await freePort();
    root = runDir('process-runtime');
    const url = new URL(databaseUrl);
    const slug = `shop-${randomBytes(3).toString('hex')}`;
    spec = {
      slug,
      erpVersion: '17.0',
      edition: 'community',
      database: url.pathname.slice(1),
      db: { host: url.hostname, port: Number(url.port), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
      sourceDir: null,
      addonsPath: [],
      dataDir: instanceDir(root, slug),
      logFile: instanceLogFile(root, slug, 'erp'),
      root,
      tenant: { kind: 'instance', slug },
    };
    onTeardown(async () => removeTenantAccount('instance', slug));
    // Whatever happens to the tests, no ERP outlives the run (registered after runDir: runs before the folder goes).
    onTeardown(async () => {
      for (const pid of erpPids(spec.database)) process.kill(pid, 'SIGKILL');
    });
  });

  after(async () => {
    for (const made of runtimes) await made.close();
    await runtime().destroy(spec.slug);
    expect(erpPids(spec.database), 'ERP processes left').to.deep.equal([]);
  });

  it('builds: the default command is the ERP stand-in, and it says so', async () => {
    const stand = runtime();
    await stand.build(spec);
    expect(stand.kind).to.equal('process');
    expect(stand.usesStandin('17.0')).to.equal(true);
    expect(stand.describe()).to.include('ERP stand-in').and.include('/services/erp-standin/odoo-bin');
  });

  it('runs the ERP once to install modules into its database', async () => {
    await runtime().runOnce(spec, ['-i', 'base,sale', '--stop-after-init']);
    const client = new pg.Client(databaseUrl);
    await client.connect();
    const { rows } = await client.query<{ name: string }>(`select name from ir_module_module where state = 'installed' order by name`);
    await client.end();
    expect(rows.map((row) => row.name)).to.deep.equal(['base', 'sale']);
    expect(readFileSync(spec.logFile, 'utf8')).to.include('module sale: installed');
  });

  it('starts a detached server on 127.0.0.1, records it, and keeps the password off its command line', async () => {
    const first = runtime();
    const { url } = await first.start(spec, port);
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    await waitUntil(() => answersHealth(url), 'the ERP to answer /web/health', 20_000);
    const record = pidFile();
    expect(record).to.include({ port: Number(new URL(url).port), database: spec.database });
    expect(readFileSync(`/proc/${record!.pid}/cmdline`, 'utf8')).not.to.include(spec.db.password);
    expect(await first.running()).to.deep.equal(new Map([[spec.slug, url]]));
    expect(readFileSync(spec.logFile, 'utf8')).to.include(`HTTP service (werkzeug) running on 127.0.0.1:${record!.port}`);
  });

  it('runs the ERP as the instance\'s own account when the executor is root, owning only the leaves it writes (issues 10 and 24)', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const record = pidFile()!;
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${record.pid}/status`, 'utf8'))?.[1];
    const erpUser = Number(execFileSync('id', ['-u', tenantAccountName('instance', spec.slug)], { encoding: 'utf8' }).trim());
    expect(Number(uid)).to.equal(erpUser).and.not.equal(0);
    expect(statSync(spec.logFile).uid, 'its log is root\'s').to.equal(0);
    expect(statSync(join(spec.dataDir, 'logs')).mode & 0o777, 'its log folder').to.equal(0o700);
    expect(statSync(spec.dataDir).uid, 'its data dir is root\'s').to.equal(0);
    expect(statSync(spec.dataDir).mode & 0o777, 'its data dir').to.equal(0o750);
    for (const leaf of ['filestore', 'sessions', 'addons', 'home']) expect(statSync(join(spec.dataDir, leaf)).uid, leaf).to.equal(erpUser);
    const environ = readFileSync(`/proc/${record.pid}/environ`, 'utf8').split('\0');
    expect(environ).to.include(`HOME=${join(spec.dataDir, 'home')}`);
    expect(readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0')).not.to.include('--logfile');
    // The stand-in's version is the one FORJA_ variable it gets: none of the executor's settings or secrets.
    // (FORJA_STANDIN_PYTHON is the stand-in's odoo-bin naming its own interpreter, not something Forja passes.)
    expect(environ.filter((line) => /^(FORJA_|DATABASE_URL|NATS_URL)/.test(line) && !line.startsWith('FORJA_STANDIN_PYTHON='))).to.deep.equal([`FORJA_STANDIN_VERSION=${spec.erpVersion}`]);
    // Issue 25: every option in the generated file, readable by the ERP's account alone; no password in its environment.
    expect(environ.some((line) => line.startsWith('PGPASSWORD='))).to.equal(false);
    const config = erpConfigFile(spec.dataDir);
    expect(readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(-8)).to.deep.equal(['-c', config, '-d', spec.database, '--http-port', String(record.port), '--http-interface', '127.0.0.1']);
    expect(statSync(config).uid, 'its configuration file is the ERP account\'s').to.equal(erpUser);
    expect(statSync(config).mode & 0o777).to.equal(0o600);
    expect(statSync(join(spec.dataDir, 'run')).uid, 'in a folder it cannot write').to.equal(0);
    expect(statSync(join(spec.dataDir, 'run')).mode & 0o777).to.equal(0o755);
    expect(readFileSync(config, 'utf8')).to.include(`db_password = ${spec.db.password}`).and.include(`data_dir = ${spec.dataDir}`).and.include('workers = 0');
  });

  it('a restarted executor adopts the running server instead of starting another', async () => {
    const before = pidFile()!;
    for (const made of runtimes) await made.close(); // the old executor is gone; its server is not
    const restarted = runtime();
    const { url } = await restarted.start(spec, port);
    expect(url).to.equal(`http://127.0.0.1:${before.port}`);
    expect(pidFile()!.pid).to.equal(before.pid);
    expect(erpPids(spec.database)).to.deep.equal([before.pid]);
    expect(await answersHealth(url)).to.equal(true);
  });

  it('stops the server: port closed, nothing running, pid file gone; stopping again is fine', async () => {
    const { port } = pidFile()!;
    const stopper = runtime();
    await stopper.stop(spec.slug);
    expect(await portOpen(port)).to.equal(false);
    expect(await stopper.running()).to.deep.equal(new Map());
    expect(existsSync(pidFilePath(root, spec.slug))).to.equal(false);
    await stopper.stop(spec.slug);
    await stopper.destroy(spec.slug);
  });

  it('a server outlives its executor being SIGKILLed, and the next executor adopts it', async () => {
    const executorMain = `
      import { ProcessRuntime } from '#services/executor/runtime/process/processRuntime.ts';
      const { url } = await new ProcessRuntime({ dataDir: process.env.ROOT }).start(JSON.parse(process.env.SPEC), Number(process.env.PORT));
      process.stdout.write(url + '\\n');
      setInterval(() => {}, 1000);
    `;
    const executor = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', executorMain], {
      detached: true,
      env: { ...process.env, ROOT: root, SPEC: JSON.stringify(spec), PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => executor.once('exit', resolve));
    const url = await Promise.race([
      new Promise<string>((resolve) => executor.stdout.once('data', (chunk) => resolve(String(chunk).trim()))),
      exited.then(() => Promise.reject(new Error('the executor exited before starting the ERP'))),
    ]);
    process.kill(-executor.pid!, 'SIGKILL'); // the executor and everything in its process group
    await exited;
    await waitUntil(() => answersHealth(url), 'the orphaned ERP to answer', 20_000);
    const adopter = runtime();
    expect((await adopter.start(spec, port)).url).to.equal(url);
    expect(erpPids(spec.database)).to.deep.equal([pidFile()!.pid]);
    await adopter.stop(spec.slug);
  });

  it('reports a server killed from outside once, to its parent and to an executor that adopted it', async () => {
    const parent = runtime();
    const adopter = runtime();
    const byParent: Array<[string, number | null]> = [];
    const byAdopter: Array<[string, number | null]> = [];
    parent.onUnexpectedExit((slug, code) => byParent.push([slug, code]));
    const { url } = await parent.start(spec, port);
    adopter.onUnexpectedExit((slug, code) => byAdopter.push([slug, code]));
    await waitUntil(() => answersHealth(url), 'the ERP to answer /web/health', 20_000);
    process.kill(pidFile()!.pid, 'SIGKILL');
    await waitUntil(() => byParent.length > 0 && byAdopter.length > 0, 'both executors to notice');
    // "Once" can only be seen by letting a few more polls pass.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(byParent).to.deep.equal([[spec.slug, null]]);
    expect(byAdopter).to.deep.equal([[spec.slug, null]]);
    expect(await adopter.running()).to.deep.equal(new Map());
  });

  it('replaces a stale pid file, reports no stop as a crash, and never adopts (or kills) a live process that is not the server', async () => {
    const stale = pidFile()!; // left by the killed server
    const starter = runtime();
    const reports: string[] = [];
    starter.onUnexpectedExit((slug) => reports.push(slug));
    const { url } = await starter.start(spec, port);
    expect(pidFile()!.pid).not.to.equal(stale.pid);
    await waitUntil(() => answersHealth(url), 'the new ERP to answer', 20_000);
    await runtime().stop(spec.slug); // another executor stopping it is no unexpected exit for this one
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reports).to.deep.equal([]);

    const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    onTeardown(async () => void stranger.kill('SIGKILL'));
    writePidFile(pidFilePath(root, spec.slug), { ...stale, pid: stranger.pid! }); // as if the pid were reused
    await starter.start(spec, port);
    expect(pidFile()!.pid).not.to.equal(stranger.pid);
    await starter.stop(spec.slug);
    writePidFile(pidFilePath(root, spec.slug), { ...stale, pid: stranger.pid! });
    await starter.stop(spec.slug);
    expect(stranger.exitCode).to.equal(null);
    expect(existsSync(`/proc/${stranger.pid}`)).to.equal(true);
    stranger.kill('SIGKILL');
  });

  it('starts again on the same port after a stop, so the URL stays valid', async () => {
    const keeper = runtime();
    const first = await keeper.start(spec, port);
    await keeper.stop(spec.slug);
    const second = await keeper.start(spec, port);
    expect(second.url).to.equal(first.url).and.equal(`http://127.0.0.1:${port}`);
    await waitUntil(() => answersHealth(second.url), 'the ERP to answer on its kept port', 20_000);
    await keeper.stop(spec.slug);
  });

  it('stops a server asked to stop as it starts, whichever program it is at (env, python3, node): none is left to take the port', async () => {
    // Inside each execve of the start the kernel shows an empty command line; a stop reading it then
    // took the server for dead and left it running (pidFile.ts, commandLineOf).
    const quick = runtime();
    for (let round = 0; round < 10; round += 1) {
      await quick.start(spec, port);
      await new Promise((resolve) => setTimeout(resolve, round * 3));
      await quick.stop(spec.slug);
      expect(erpPids(spec.database), `round ${round}`).to.deep.equal([]);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(erpPids(spec.database)).to.deep.equal([]);
    expect(await portOpen(port)).to.equal(false);
  });

  it('refuses to start when something else holds the port, naming the port and the holder', async () => {
    const holder = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${port}, '127.0.0.1', () => console.log('listening'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    onTeardown(async () => void holder.kill('SIGKILL'));
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const error = await runtime()
      .start(spec, port)
      .then(() => null, (rejection: unknown) => rejection);
    expect(error).to.have.property('name', 'PortTakenError');
    expect((error as Error).message).to.include(`port ${port}`).and.include(`pid ${holder.pid}`).and.include(spec.slug);
    expect(erpPids(spec.database)).to.deep.equal([]);
    holder.kill('SIGKILL');
  });

  it('rejects a failed run with ErpRunError: exit code and the tail of the log', async () => {
    const error = await runtime()
      .runOnce(spec, ['-i', 'Sale;drop', '--stop-after-init'])
      .then(() => null, (rejection: unknown) => rejection);
    expect(error).to.be.instanceOf(ErpRunError);
    expect((error as ErpRunError).exitCode).to.equal(2);
    expect((error as ErpRunError).logTail).to.include('odoo-bin (stand-in): -i: "Sale;drop" is not a module name');
    expect((error as ErpRunError).logTail.length).to.be.at.most(20);
  });

  it('kills a run when its AbortSignal fires', async () => {
    const abort = new AbortController();
    // Without --stop-after-init the ERP would serve forever.
    const run = runtime().runOnce(spec, ['--http-port', String(await freePort())], abort.signal);
    await waitUntil(() => erpPids(spec.database).length > 0, 'the run to start');
    abort.abort();
    const error = await run.then(() => null, (rejection: unknown) => rejection);
    expect(error).to.have.property('name', 'AbortError');
    expect(erpPids(spec.database)).to.deep.equal([]);
  });

  it('build names the setting and the path when the command is missing or not executable', async () => {
    const missing = runtime({ command: join(root, 'erp/{version}/odoo-bin') });
    const error = await missing.build(spec).then(() => null, (rejection: unknown) => rejection);
    expect(String(error)).to.equal(`ConfigError: FORJA_ERP_COMMAND: ${join(root, 'erp/17.0/odoo-bin')} (ERP version 17.0) does not exist`);
    expect(missing.usesStandin('17.0')).to.equal(false);
    expect(missing.describe()).not.to.include('stand-in');

    mkdirSync(join(root, 'erp/17.0'), { recursive: true });
    writeFileSync(join(root, 'erp/17.0/odoo-bin'), '#!/bin/sh\n');
    chmodSync(join(root, 'erp/17.0/odoo-bin'), 0o644);
    const notExecutable = await missing.build(spec).then(() => null, (rejection: unknown) => rejection);
    expect(String(notExecutable)).to.match(/FORJA_ERP_COMMAND: .*erp\/17\.0\/odoo-bin \(ERP version 17\.0\) is not executable$/);
  });
});
