import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { groupMembers } from '#shared/platform/processGroup.ts';
import { removeTenantAccount, tenantAccount } from '#shared/local/tenantAccount.ts';
import { oneShotPidFilePath, oneShotRecordOf, readOneShotFile, writePidFile } from '#services/executor/runtime/process/pidFile.ts';
import { ProcessRuntime } from '#services/executor/runtime/process/processRuntime.ts';
import type { ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { waitUntil } from '#test/support/wait.ts';
import { recordedPids, running } from './fixtures/processes.ts';

/**
 * A stand-in ERP command for one-shot runs, told what to do by its last argument. It records
 * its pids in `home/pids` below its working folder (the instance's, which only root writes): its own first, then its children's.
 */
const FAKE_ERP = `#!/bin/sh
for last; do :; done
case "$last" in
  hang) echo $$ > home/pids; sleep 60 & echo $! >> home/pids; wait ;;
  stubborn) trap '' TERM; echo $$ > home/pids; sleep 60 & echo $! >> home/pids; wait ;;
  leave) sleep 60 & echo $! > home/pids; exit 0 ;;
  *) exit 0 ;;
esac
`;

const GRACE_MS = 500;

/**
 * One-shot ERP runs of the process runtime: stopped by their job's signal (the whole process
 * group), recorded in `oneshot.pid` while they run, and ended by the next run, `stop` or
 * `destroy` when an executor that died left one behind.
 */
describe('process runtime: one-shot runs that must not outlive their job', function () {
  this.timeout(20_000);
  let root: string;
  let runtime: ProcessRuntime;
  let spec: ErpRunSpec;
  /** Who the runtime runs the instance's ERP as (its own account when root): what survivors are simulated as. */
  const erpUser = () => tenantAccount('instance', spec.slug);
  const pidFile = () => oneShotPidFilePath(root, spec.slug);
  const pids = () => recordedPids(join(spec.dataDir, 'home', 'pids'));
  const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('the run should have been rejected'), (error: Error) => error);

  before(() => {
    root = runDir('process-oneshot');
    const command = join(root, 'fake-odoo-bin');
    writeFileSync(command, FAKE_ERP, { mode: 0o755 });
    runtime = new ProcessRuntime({ dataDir: root, command, oneShotGraceMs: GRACE_MS, stopGraceMs: GRACE_MS });
  });
  beforeEach(() => {
    const slug = `shot-${randomBytes(3).toString('hex')}`;
    spec = {
      slug,
      erpVersion: '17.0',
      edition: 'community',
      database: `forja_${slug.replace('-', '_')}`,
      db: { host: '127.0.0.1', port: 1, user: 'nobody', password: 'unused' },
      sourceDir: null,
      addonsPath: [],
      dataDir: instanceDir(root, slug),
      logFile: instanceLogFile(root, slug, 'erp'),
      root,
      tenant: { kind: 'instance', slug },
    };
    onTeardown(async () => removeTenantAccount('instance', slug));
  });
  after(async () => {
    await runtime.close();
  });

  /** A process group as an executor that died mid-run leaves it: a shell and its sleep, running as the ERP's user, recorded as runOnce records a run. */
  async function survivor({ leaderExits = false } = {}): Promise<number> {
    mkdirSync(spec.dataDir, { recursive: true });
    // The leader that exits waits for its stdin to close first: it is recorded while it still runs
    // (a leader gone before its record was taken left no record, and stop nothing to end).
    const script = leaderExits ? 'sleep 60 & read _ ; exit 0' : 'sleep 60 & wait';
    const user = erpUser();
    const as = user ? { uid: user.uid, gid: user.gid } : {};
    const leader = spawn('sh', ['-c', script], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], ...as });
    const pid = leader.pid!;
    onTeardown(async () => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    });
    await waitUntil(() => groupMembers(pid).length === 2, 'the survivor and its child to start');
    const record = oneShotRecordOf(pid, 'fake-odoo-bin', spec.database);
    writePidFile(pidFile(), record!);
    leader.stdin!.end();
    await waitUntil(() => groupMembers(pid).length === (leaderExits ? 1 : 2), 'the survivor’s group to be complete');
    return pid;
  }

  it('records a run while it runs; an abort stops its whole group, rejects promptly with the reason and removes the record', async () => {
    const abort = new AbortController();
    const run = rejection(runtime.runOnce(spec, ['hang'], abort.signal));
    await waitUntil(() => pids().length === 2, 'the run and its child to start');
    const [leader] = pids();
    expect(readOneShotFile(pidFile())).to.include({ pid: leader, database: spec.database });

    const started = Date.now();
    const reason = new Error('the instance is being destroyed');
    abort.abort(reason);
    expect(await run).to.equal(reason);
    expect(Date.now() - started).to.be.below(1_000);
    expect(pids().filter(running), 'processes left').to.deep.equal([]);
    expect(groupMembers(leader!)).to.deep.equal([]);
    expect(existsSync(pidFile())).to.equal(false);
  });

  it('SIGKILLs a run that ignores SIGTERM once the grace period is over', async () => {
    const abort = new AbortController();
    const run = rejection(runtime.runOnce(spec, ['stubborn'], abort.signal));
    await waitUntil(() => pids().length === 2, 'the run and its child to start');
    const started = Date.now();
    abort.abort();
    expect(await run).to.have.property('name', 'AbortError');
    expect(Date.now() - started).to.be.within(GRACE_MS - 100, GRACE_MS + 1_000);
    expect(pids().filter(running), 'processes left').to.deep.equal([]);
    expect(existsSync(pidFile())).to.equal(false);
  });

  it('ends what a finished run left in its process group', async () => {
    await runtime.runOnce(spec, ['leave']);
    expect(pids()).to.have.length(1);
    expect(pids().filter(running), 'processes left').to.deep.equal([]);
    expect(existsSync(pidFile())).to.equal(false);
  });

  it('the next run ends a run an earlier executor left behind', async () => {
    const leader = await survivor();
    await runtime.runOnce(spec, ['ok']);
    expect(groupMembers(leader)).to.deep.equal([]);
    expect(existsSync(pidFile())).to.equal(false);
  });

  it('stop (and so destroy) ends a run left behind, even one whose leader died and left its children', async () => {
    const leader = await survivor();
    await runtime.stop(spec.slug);
    expect(groupMembers(leader)).to.deep.equal([]);
    expect(existsSync(pidFile())).to.equal(false);

    const orphaned = await survivor({ leaderExits: true });
    await runtime.destroy(spec.slug);
    expect(groupMembers(orphaned)).to.deep.equal([]);
    expect(existsSync(pidFile())).to.equal(false);
  });

  it('leaves alone a recorded pid that is another process now', async () => {
    const leader = await survivor();
    writePidFile(pidFile(), { ...readOneShotFile(pidFile())!, startTime: '1' }); // as if the pid were reused
    await runtime.stop(spec.slug);
    expect(groupMembers(leader)).to.have.length(2);
    expect(existsSync(pidFile())).to.equal(false);
    process.kill(-leader, 'SIGKILL');
  });

  it('never signals a process of another user, though customer code could write such a record (an earlier layout gave the ERP the folder)', async function () {
    if (!erpUser()) this.skip(); // the ERP runs as the executor's own user: nothing to guard
    const stranger = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' }); // root's
    onTeardown(async () => void stranger.kill('SIGKILL'));
    mkdirSync(spec.dataDir, { recursive: true });
    writePidFile(pidFile(), oneShotRecordOf(stranger.pid!, 'fake-odoo-bin', spec.database)!);
    await runtime.runOnce(spec, ['ok']);
    expect(running(stranger.pid!)).to.equal(true);
    stranger.kill('SIGKILL');
  });

  it('neither follows nor waits on a link or a fifo customer code put where the executor reads and writes its records', async () => {
    mkdirSync(spec.dataDir, { recursive: true });
    const victim = join(root, `victim-${spec.slug}`);
    writeFileSync(victim, 'not the executor’s to write\n');
    const leader = await survivor();
    const record = readFileSync(pidFile(), 'utf8');
    // The survivor's true record behind a link: a record read through a link is not believed.
    writeFileSync(join(root, `record-${spec.slug}`), record);
    rmSync(pidFile());
    symlinkSync(join(root, `record-${spec.slug}`), pidFile());
    // And a link where the next record's temporary file goes.
    symlinkSync(victim, `${pidFile()}.${process.pid}.tmp`);
    await runtime.runOnce(spec, ['ok']);
    expect(readFileSync(victim, 'utf8')).to.equal('not the executor’s to write\n');
    expect(groupMembers(leader), 'a survivor known only through a link').to.have.length(2);
    process.kill(-leader, 'SIGKILL');

    execFileSync('mkfifo', [pidFile()]);
    await runtime.stop(spec.slug);
    expect(existsSync(pidFile())).to.equal(false);
  });
});
