import { join } from 'node:path';
import { expect } from 'chai';
import { runTool, startTool } from '#services/executor/database/toolProcess.ts';
import { signalGroup } from '#shared/platform/processGroup.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { memoryLog } from './fixtures/databaseFixtures.ts';
import { recordedPids, running } from './fixtures/processes.ts';

/** A shell that records its pid and its two background sleeps' (grandchildren of the executor) in `pidFile`, then waits. */
const sleeper = (pidFile: string, { ignoreTerm = false } = {}) => [
  '-c',
  `${ignoreTerm ? "trap '' TERM; " : ''}echo $$ > '${pidFile}'; sleep 60 & echo $! >> '${pidFile}'; sleep 60 & echo $! >> '${pidFile}'; wait`,
];

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: Error) => error,
  );
}

describe('executor: tools stopped by their job’s AbortSignal', function () {
  this.timeout(15_000);
  let dir: string;

  before(() => {
    dir = runDir('tool-process');
  });

  async function startedSleeper(name: string, options: { ignoreTerm?: boolean; killGraceMs?: number; reason?: unknown } = {}) {
    const pidFile = join(dir, `${name}.pids`);
    const log = memoryLog();
    const abort = new AbortController();
    const run = runTool('sh', sleeper(pidFile, options), {
      what: name,
      log: log.stream,
      signal: abort.signal,
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    });
    run.catch(() => undefined);
    await waitUntil(() => recordedPids(pidFile).length === 3, 'the shell and its two sleeps to start');
    const pids = recordedPids(pidFile);
    return { pids, log, run, abort: () => abort.abort(options.reason) };
  }

  it('stops the tool and what it started with SIGTERM to its process group, and rejects with the abort’s reason', async () => {
    const { pids, log, run, abort } = await startedSleeper('term', { reason: new Error('job 42 cancelled') });
    expect(pids.every(running)).to.equal(true);
    const started = Date.now();
    abort();
    const error = await rejection(run);
    expect(error.message).to.equal('job 42 cancelled');
    expect(Date.now() - started).to.be.below(1_000);
    expect(pids.filter(running), 'processes left').to.deep.equal([]);
    expect(log.text()).to.match(/sh: aborted, stopping it \(SIGTERM, SIGKILL after 3000 ms\)/);
  });

  it('SIGKILLs the whole group after the grace period when the tool and its children ignore SIGTERM', async () => {
    const { pids, run, abort } = await startedSleeper('kill', { ignoreTerm: true, killGraceMs: 500 });
    const started = Date.now();
    abort();
    const error = await rejection(run);
    expect(error.name).to.equal('AbortError');
    expect(Date.now() - started).to.be.within(400, 1_500);
    expect(pids.filter(running), 'processes left').to.deep.equal([]);
  });

  it('says what was aborted when the reason is no Error', async () => {
    const { pids, run, abort } = await startedSleeper('plain', { reason: 'the instance was destroyed' });
    abort();
    const error = await rejection(run);
    expect(error.name).to.equal('AbortError');
    expect(error.message).to.equal('sh was aborted: the instance was destroyed');
    expect(pids.filter(running)).to.deep.equal([]);
  });

  it('stops at once a tool started with a signal that already fired; its exit says so', async () => {
    const log = memoryLog();
    const started = Date.now();
    const { exit } = startTool('sleep', ['60'], { log: log.stream, signal: AbortSignal.abort() });
    const result = await exit;
    expect(Date.now() - started).to.be.below(1_000);
    expect(result.aborted?.name).to.equal('AbortError');
    expect(result.signal).to.equal('SIGTERM');
  });

  it('leaves a tool that ends before any abort alone: it succeeds, and a later abort signals nothing', async () => {
    const abort = new AbortController();
    const log = memoryLog();
    await runTool('sh', ['-c', 'echo done >&2'], { what: 'quick', log: log.stream, signal: abort.signal });
    abort.abort();
    expect(log.text()).to.match(/sh: done/).and.not.match(/aborted/);
  });

  it('refuses to signal process group 1 or 0, which would reach every process', () => {
    expect(() => signalGroup(1, 'SIGTERM')).to.throw(/not a process group/);
    expect(() => signalGroup(0, 'SIGTERM')).to.throw(/not a process group/);
  });
  it('says a failed tool’s ERROR first, even one pushed out of the tail by later lines; the log keeps every line in order', async () => {
    const log = memoryLog();
    const script = "echo 'NOTICE:  one' >&2; echo 'ERROR:  the real reason' >&2; for i in $(seq 1 20); do echo \"context $i\" >&2; done; exit 3";
    const error = await rejection(runTool('sh', ['-c', script], { what: 'restore', log: log.stream }));
    expect(error.message).to.match(/^restore: sh exited with 3: ERROR: {2}the real reason \| context 9 \| /);
    expect(error.message).not.to.include('NOTICE');
    const text = log.text();
    expect(text.indexOf('NOTICE:  one')).to.be.lessThan(text.indexOf('ERROR:  the real reason'));
  });
});
