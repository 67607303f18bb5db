import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { partPath } from '#services/executor/migration/fetch/partFile.ts';
import { migrationPaths, runLogFile } from '#services/executor/migration/migrationHost.ts';
import { inputDumpFile } from '#services/executor/migration/steps/fetch.ts';
import { migrationStream, type MigrationEvent, type RunRequest } from '#services/migrations/domain/migration.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { instanceClient } from '#test/support/instances.ts';
import { testNatsUrl } from '#test/support/nats.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { createTestDatabase, testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { workingInstanceSlug } from '#shared/instanceDatabase/reservedNames.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));

/** The wait for one executor to reach its kill point, and for the last one to finish the run. */
const STEP_WAIT_MS = 45_000;

/**
 * The executor of a community 16.0 → 17.0 migration run is SIGKILLed once in the middle of the
 * download, then once in the first step of every kind of the shipped recipe, each time after the
 * step did its work and before its completion was recorded; a new executor (a child process on the
 * same database and bus) gets the run redelivered and resumes it. The run still succeeds, every
 * step completed exactly once, the dump came in one full GET (plus one Range request resuming the
 * broken one), and no attempt restored the dump more than once.
 */
describe('a migration run whose executor is killed in every step kind', function () {
  this.timeout(180_000);
  let platform: TestPlatform;
  let server: Server;
  let dumpUrl: string;
  let dumpBytes: Buffer;
  /** The Range header of each request the file server got (undefined: a full GET). */
  const requests: Array<string | undefined> = [];
  /** The first full GET is left hanging after half the file, so that the kill lands mid-download. */
  let stalled: ServerResponse | undefined;
  let child: ChildProcess | undefined;
  let env: Record<string, string>;
  let cluster: Awaited<ReturnType<typeof testCluster>>;
  let slug: string | undefined;

  before(async () => {
    cluster = await testCluster();
    const natsUrl = await testNatsUrl();
    const databaseUrl = await createTestDatabase('migkill');
    const dataDir = runDir('migration-kill');
    const source = `customer_${Date.now()}`;
    const parsed = new URL(cluster.url);
    const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    const installed = spawnSync(STANDIN, ['-d', source, '-i', 'sale,crm', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' } });
    expect(installed.status, installed.stderr).to.equal(0);
    const dumpFile = join(dataDir, 'customer.dump');
    const dumped = spawnSync('pg_dump', ['-Fc', '-f', dumpFile, cluster.urlFor(source)], { encoding: 'utf8' });
    expect(dumped.status, dumped.stderr).to.equal(0);
    dumpBytes = readFileSync(dumpFile);
    server = createServer((req, res) => {
      if (req.url !== '/customer.dump') return void res.writeHead(404).end();
      const range = req.headers.range;
      requests.push(range);
      const headers = { 'content-type': 'application/octet-stream', etag: '"customer-v1"', 'accept-ranges': 'bytes' };
      const from = /^bytes=(\d+)-$/.exec(range ?? '');
      if (from && (req.headers['if-range'] === undefined || req.headers['if-range'] === headers.etag)) {
        const start = Number(from[1]);
        res.writeHead(206, { ...headers, 'content-length': String(dumpBytes.length - start), 'content-range': `bytes ${start}-${dumpBytes.length - 1}/${dumpBytes.length}` });
        return void res.end(dumpBytes.subarray(start));
      }
      res.writeHead(200, { ...headers, 'content-length': String(dumpBytes.length) });
      if (requests.length > 1) return void res.end(dumpBytes);
      stalled = res;
      res.write(dumpBytes.subarray(0, Math.floor(dumpBytes.length / 2)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dumpUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/customer.dump`;
    platform = await startTestPlatform([], { DATABASE_URL: databaseUrl, NATS_URL: natsUrl, FORJA_DATA_DIR: dataDir, FORJA_PULL_ALLOW_HOSTS: '127.0.0.1' });
    await platform.createUser('dev@example.com', 'developer');
    env = {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      FORJA_DATA_DIR: dataDir,
      FORJA_RUNTIME: 'process',
      FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'),
      FORJA_PULL_ALLOW_HOSTS: '127.0.0.1',
      // A killed executor's run comes back to the next one this long after its last heartbeat.
      FORJA_JOB_ACK_WAIT_S: '2',
      FORJA_HEALTH_TIMEOUT_S: '60',
      FORJA_PROJECTION_POLL_MS: '100',
      LOG_LEVEL: 'silent',
    };
  });
  after(async () => {
    // The last executor is alive: it stops the working instance's ERP, then goes.
    if (slug && child?.exitCode === null && child.signalCode === null) {
      const instances = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
      const working = workingInstanceSlug(slug, 1);
      await instances
        .act(working, 'stop')
        .then(() => instances.settled(working, 'stopped', 30_000))
        .catch(() => undefined);
    }
    await kill('SIGTERM');
    stalled?.destroy();
    server?.closeAllConnections();
    server?.close();
    await platform?.stop();
  });

  const call = (path: string, init: RequestInit = {}) => fetch(`${platform.urls.controlPlane}${path}`, { ...init, headers: { authorization: basic('dev@example.com'), 'content-type': 'application/json' } });
  const run = async () => (await (await call(`/api/v1/migrations/${slug}/runs/1`)).json()) as { status: string; error: string | null; steps: Array<{ id: string; status: string; error: string | null }> };
  const events = async () => (await platform.infra.store.readStream<MigrationEvent>(migrationStream(slug!))).events;
  /** Where the run stands, for a failure's message. */
  const standing = async () => (await events()).map((event) => `${event.type} ${JSON.stringify(event.data).slice(0, 160)}`).join('\n');

  /**
   * Starts an executor; resolves when `pauseAfter` (a step id) did its work and hangs before its
   * completion is recorded (never without one), rejects when the executor exits on its own.
   */
  function startExecutor(pauseAfter?: string): Promise<void> {
    const started = fork('test/support/migrationExecutorChild.ts', [], { execArgv: ['--import', 'tsx'], env: { ...env, ...(pauseAfter ? { PAUSE_AFTER_STEP: pauseAfter } : {}) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child = started;
    return new Promise((resolve, reject) => {
      started.on('message', (message: { paused?: string }) => message.paused === pauseAfter && resolve());
      started.on('exit', (code, signal) => signal !== 'SIGKILL' && signal !== 'SIGTERM' && reject(new Error(`the executor exited early (${code ?? signal})`)));
    });
  }
  async function kill(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill(signal);
    await exited;
  }
  const within = async <T>(promise: Promise<T>, what: string, ms = STEP_WAIT_MS): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => void standing().catch(String).then((stand) => reject(new Error(`timed out after ${ms} ms waiting for ${what}; the migration stream:\n${stand}`))), ms);
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  };

  it('still migrates: each step completed once, one full download, at most one restore per attempt', async () => {
    const created = await call('/api/v1/migrations', { method: 'POST', body: JSON.stringify({ name: 'Killed upgrade', origin: '16.0', destination: '17.0', pull_url: dumpUrl }) });
    expect(created.status, await created.clone().text()).to.equal(201);
    slug = ((await created.json()) as { slug: string }).slug;
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    const requested = (await events()).find((event) => event.type === 'MigrationRunRequested')!.data as RunRequest;
    // The first step of each kind of the shipped recipe: fetch, restore, check, modules, filestore, disk, backup, sql, erp, …
    const targets: PlannedStep[] = requested.plan.filter((step, index, plan) => plan.findIndex((other) => other.type === step.type) === index);
    expect(targets.map((step) => step.type)).to.include.members(['fetch', 'restore', 'check', 'modules', 'filestore', 'disk', 'backup', 'sql', 'erp', 'dump', 'filestore_archive', 'instance', 'report']);

    // Kill 1: in the middle of the download (the server sent half the dump and holds the rest).
    const part = partPath(inputDumpFile(migrationPaths(env['FORJA_DATA_DIR']!, slug, 1).input));
    const partSize = () => {
      try {
        return statSync(part).size;
      } catch {
        return 0;
      }
    };
    await within(Promise.race([waitUntil(() => requests.length === 1 && partSize() > 0, 'part of the dump on disk', STEP_WAIT_MS), startExecutor()]), 'the download to be under way');
    await kill();
    expect(partSize(), 'the kill landed mid-download').to.be.below(dumpBytes.length);

    // Then once in each kind of step, after its work and before its completion is recorded.
    for (const step of targets) {
      const paused = startExecutor(step.id);
      await within(paused, `${step.id} (${step.type}) to do its work`);
      await kill();
    }
    const finished = waitUntil(
      async () => {
        const now = await run();
        if (now.status === 'failed') throw new Error(`the run failed: ${now.error}; ${JSON.stringify(now.steps.filter((step) => step.error))}`);
        return now.status === 'succeeded';
      },
      'the run to succeed',
      STEP_WAIT_MS,
    );
    await within(Promise.race([finished, startExecutor()]), 'the run to succeed');

    const migration = (await (await call(`/api/v1/migrations/${slug}`)).json()) as { status: string; working_database: string };
    expect(migration.status).to.equal('migrated');
    const db = new pg.Client(cluster.urlFor(migration.working_database));
    await db.connect();
    try {
      const { rows } = await db.query<{ name: string; latest_version: string }>("select name, latest_version from ir_module_module where state = 'installed'");
      expect(rows.length).to.be.greaterThan(2);
      expect(rows.filter((row) => !row.latest_version.startsWith('17.0.')), 'every installed module at 17.0').to.deep.equal([]);
    } finally {
      await db.end();
    }

    const stream = await events();
    const count = (type: string, step: string) => stream.filter((event) => event.type === type && (event.data as { step?: string }).step === step).length;
    for (const step of requested.plan) expect(count('MigrationStepCompleted', step.id), `${step.id} completed`).to.equal(1);
    // A killed step starts again as a new attempt (fetch twice: killed mid-download, then after it); no other step runs twice.
    const starts = Object.fromEntries(requested.plan.map((step) => [step.id, count('MigrationStepStarted', step.id)]));
    const expected = Object.fromEntries(requested.plan.map((step) => [step.id, step.type === 'fetch' ? 3 : targets.includes(step) ? 2 : 1]));
    expect(starts).to.deep.equal(expected);

    expect(requests.filter((range) => range === undefined), `one full GET (requests: ${JSON.stringify(requests)})`).to.have.length(1);
    expect(requests[1], 'the download resumed where the kill broke it').to.match(/^bytes=[1-9]\d*-$/);

    const restoreAttempts = count('MigrationStepStarted', 'restore');
    const restores = readFileSync(runLogFile(env['FORJA_DATA_DIR']!, slug, 1), 'utf8').match(/ forja: restoring the \w+ dump into /g)?.length ?? 0;
    expect(restores, `restores of the dump (${restoreAttempts} attempts of restore)`).to.be.within(1, restoreAttempts);
  });
});
