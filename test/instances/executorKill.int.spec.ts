import { expect } from 'chai';
import { fork, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { instanceStream, jobSteps, type InstanceEvent } from '#services/instances/domain/instance.ts';
import { instanceClient } from '#test/support/instances.ts';
import { testNatsUrl } from '#test/support/nats.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { createTestDatabase, testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';

/**
 * The executor is SIGKILLed in every provisioning step in turn, each time after the step did its
 * work and before its completion was recorded. JetStream redelivers the job to the next executor,
 * which resumes at that step: the instance still comes up, every step completed exactly once.
 */
describe('executor killed in every step', function () {
  this.timeout(240_000);
  let platform: TestPlatform;
  let child: ChildProcess | undefined;
  let env: Record<string, string>;

  before(async () => {
    const natsUrl = await testNatsUrl();
    const databaseUrl = await createTestDatabase('kill');
    const dataDir = runDir('kill'); // traversable: the ERP runs as its own user under it
    platform = await startTestPlatform([], { DATABASE_URL: databaseUrl, NATS_URL: natsUrl, FORJA_DATA_DIR: dataDir });
    await platform.createUser('dev@example.com', 'developer');
    env = {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      FORJA_DATA_DIR: dataDir,
      FORJA_RUNTIME: 'process',
      FORJA_ERP_DATABASE_URL: (await testCluster()).urlFor('postgres'),
      FORJA_JOB_ACK_WAIT_S: '3',
      FORJA_HEALTH_TIMEOUT_S: '30',
      FORJA_PROJECTION_POLL_MS: '100',
      LOG_LEVEL: 'silent',
    };
  });
  after(async () => {
    child?.kill('SIGKILL');
    const client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
    const last = fork('services/executor/main.ts', [], { execArgv: ['--import', 'tsx'], env, stdio: 'ignore' });
    await client.act('kill-dev', 'stop').then(() => client.settled('kill-dev', 'stopped')).catch(() => undefined);
    last.kill('SIGTERM');
    await platform?.stop();
  });

  /** Starts an executor that hangs after `pauseAfter` did its work; resolves then. */
  function executorPausingAfter(pauseAfter: string | undefined): Promise<void> {
    child = fork('test/support/executorChild.ts', [], { execArgv: ['--import', 'tsx'], env: { ...env, ...(pauseAfter ? { PAUSE_AFTER_STEP: pauseAfter } : {}) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    return new Promise((resolve, reject) => {
      child!.on('message', (message: { paused: string }) => message.paused === pauseAfter && resolve());
      child!.on('exit', (code, signal) => signal !== 'SIGKILL' && reject(new Error(`executor exited early (${code ?? signal})`)));
    });
  }

  it('still reaches running with each step completed exactly once', async () => {
    const client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
    await client.create({ name: 'dev', project: 'Kill', erp_version: '17.0', modules: ['sale'] });
    const steps = jobSteps('provision', false);
    for (const step of steps) {
      await executorPausingAfter(step);
      child!.kill('SIGKILL');
      await new Promise((resolve) => child!.once('exit', resolve));
    }
    executorPausingAfter(undefined).catch(() => undefined);
    const running = await client.settled('kill-dev', 'running', 30_000).catch(async (error: unknown) => {
      const { events } = await platform.infra.store.readStream(instanceStream('kill-dev'));
      console.error(events.map((event) => `${event.type} ${JSON.stringify(event.data).slice(0, 150)}`).join('\n'));
      console.error(await client.get('kill-dev'));
      throw error;
    });
    expect((await fetch(`${running.url}/web/health`)).status).to.equal(200);

    const { events } = await platform.infra.store.readStream<InstanceEvent>(instanceStream('kill-dev'));
    const count = (type: string, step: string) => events.filter((event) => event.type === type && (event.data as { step?: string }).step === step).length;
    for (const step of steps) {
      expect(count('InstanceStepCompleted', step), `${step} completed`).to.equal(1);
      expect(count('InstanceStepStarted', step), `${step} started again after the kill`).to.equal(2);
    }
    expect(events.filter((event) => event.type === 'InstanceJobSucceeded')).to.have.length(1);
    expect(running.job.steps.every((step) => step.state === 'completed' && step.attempts === 2)).to.equal(true);

    const db = new pg.Client({ connectionString: (await testCluster()).urlFor(databaseName('kill-dev')) });
    await db.connect();
    const { rows } = await db.query<{ name: string }>("select name from ir_module_module where state = 'installed' order by name");
    await db.end();
    expect(rows.map((row) => row.name)).to.deep.equal(['base', 'sale']);
  });
});
