import { expect } from 'chai';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { STANDIN_COMMAND } from '#services/executor/runtime/process/erpCommand.ts';
import { instanceStream, type InstanceEvent } from '#services/instances/domain/instance.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A destroy cancels the job it finds running: the relay tells the executor, which kills the
 * running step's processes instead of waiting for them.
 */
describe('destroying an instance whose step hangs', function () {
  this.timeout(90_000);
  let platform: TestPlatform;
  let client: ReturnType<typeof instanceClient>;
  let pidFile: string;

  before(async () => {
    const dir = runDir('hung-erp');
    const shared = join(dir, 'pids');
    mkdirSync(shared);
    chmodSync(shared, 0o777); // the ERP runs as the instance's own account when the tests run as root
    pidFile = join(shared, 'install.pid');
    // An ERP whose one-shot runs (module installs) hang for ten minutes; the server is the stand-in.
    const command = join(dir, 'odoo-bin');
    writeFileSync(command, `#!/bin/sh\nfor arg in "$@"; do\n  if [ "$arg" = "--stop-after-init" ]; then echo $$ > ${pidFile}; exec sleep 600; fi\ndone\nexec ${STANDIN_COMMAND} "$@"\n`);
    chmodSync(command, 0o755);
    const adminUrl = (await testCluster()).urlFor('postgres');
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_COMMAND: command, FORJA_ERP_DATABASE_URL: adminUrl, FORJA_HEALTH_TIMEOUT_S: 30 })]);
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
  });
  after(async () => {
    await platform?.stop();
  });

  it('reaches destroyed within 10 s, with the hung process gone and its step recorded as interrupted', async () => {
    const { slug } = await client.create({ name: 'hung', project: 'Acme', erp_version: '17.0', modules: ['sale'] });
    await waitUntil(async () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the module install to hang', 30_000);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(alive(pid), 'the install hangs').to.equal(true);
    const installing = async () => (await client.get(slug)).job.steps.find((step) => step.step === 'install_modules')?.state === 'running';
    await waitUntil(installing, 'the read model to show the install running', 10_000);
    const provisioning = await client.get(slug);

    const asked = performance.now();
    await client.act(slug, 'destroy');
    await client.settled(slug, 'destroyed', 10_000);
    const tookMs = performance.now() - asked;
    expect(tookMs, `destroyed after ${Math.round(tookMs)} ms`).to.be.below(10_000);
    expect(alive(pid), 'the hung install was killed').to.equal(false);

    const { events } = await platform.infra.store.readStream<InstanceEvent>(instanceStream(slug));
    const interrupted = events.find((event) => event.type === 'InstanceStepInterrupted');
    expect(interrupted?.data).to.include({ step: 'install_modules', reason: 'cancel', jobId: provisioning.job.id });
    expect(events.some((event) => event.type === 'InstanceJobCancelled')).to.equal(true);
    const lateResult = events.filter((event) => {
      const data = event.data as { jobId?: string; step?: string };
      return (event.type === 'InstanceStepCompleted' || event.type === 'InstanceStepFailed') && data.jobId === provisioning.job.id && data.step === 'install_modules';
    });
    expect(lateResult, 'the killed attempt recorded no result').to.deep.equal([]);
  });
});
