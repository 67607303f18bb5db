import { expect } from 'chai';
import { createMemoryBus } from '#shared/bus/memoryBus.ts';
import { createPool, type Pool } from '#shared/db.ts';
import type { Bus } from '#shared/bus/bus.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { StaleAttemptError } from '#shared/workflow/workflowDecide.ts';
import type { WorkflowEvent } from '#shared/workflow/workflowEvents.ts';
import type { RunResult } from '#shared/workflow/workflowRunner.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { requestTestJob, scriptStep, testMetadata, type StepCall, type TestJob } from '#test/support/testWorkflowHost.ts';
import { waitUntil } from '#test/support/wait.ts';

const types = (events: WorkflowEvent[]) => events.map((event) => event.type);
const ofType = <T extends WorkflowEvent['type']>(events: WorkflowEvent[], type: T) => events.filter((event): event is Extract<WorkflowEvent, { type: T }> => event.type === type);
const started = (job: TestJob, step: string, attempt = 1): Promise<StepCall> =>
  waitUntil(() => job.calls.some((call) => call.step === step && call.attempt === attempt), `${step} attempt ${attempt} to start`, 3000).then(
    () => job.calls.find((call) => call.step === step && call.attempt === attempt)!,
  );

describe('runWorkflowJob', function () {
  this.timeout(5000);
  let pool: Pool;
  let store: EventStore;
  let bus: Bus;
  /** Runs still going when a test ends are shut down, so one failure does not leave steps hanging. */
  const shutdowns: AbortController[] = [];
  const shutdownSignal = () => {
    const controller = new AbortController();
    shutdowns.push(controller);
    return controller.signal;
  };
  const request = (plan: PlannedStep[]) => requestTestJob(store, bus, plan);

  before(async function () {
    this.timeout(60_000);
    const url = await createTestDatabase('workflow');
    pool = createPool(url);
    await migrateEventStore(pool);
    store = createPgEventStore({ pool, connectionString: url });
    bus = createMemoryBus();
  });
  afterEach(() => shutdowns.splice(0).forEach((controller) => controller.abort(new Error('test over'))));
  after(async () => {
    await bus.close();
    await store.close();
    await pool.end();
  });

  it('runs a plan to its end, reading the whole stream once and then only what was appended since', async () => {
    const job = await request([scriptStep('a', { sleepMs: 60, facts: { a: 1 } }), scriptStep('b', { sleepMs: 60 }), scriptStep('c', { sleepMs: 60 })]);
    const reads: Array<number | undefined> = [];
    const watched: EventStore = { ...store, readStream: ((stream, options) => (reads.push(options?.fromVersion), store.readStream(stream, options))) as EventStore['readStream'] };

    expect(await job.run({ store: watched, checkMs: 25 })).to.equal('ended');

    const events = await job.events();
    expect(types(events)).to.deep.equal(['StepStarted', 'StepCompleted', 'StepStarted', 'StepCompleted', 'StepStarted', 'StepCompleted', 'JobSucceeded']);
    expect(ofType(events, 'StepStarted').map((event) => [event.data.step, event.data.attempt, event.data.executor])).to.deep.equal([
      ['a', 1, 'test:1'],
      ['b', 1, 'test:1'],
      ['c', 1, 'test:1'],
    ]);
    expect(ofType(events, 'StepCompleted')[0]?.data.facts).to.deep.equal({ a: 1 });
    expect(reads[0], 'the first read folds the stream from its start').to.equal(0);
    expect(reads.length, 'the periodic re-reads ran while the steps slept').to.be.greaterThan(1);
    expect(reads.slice(1).every((fromVersion) => fromVersion !== undefined && fromVersion > 0), `later reads start past the folded version: ${reads.join(',')}`).to.equal(true);
  });

  describe('retries', () => {
    it('runs a step that fails retryable again after its backoff, and records each failed attempt', async () => {
      const job = await request([scriptStep('flaky', { failRetryable: 2, facts: { ok: true } }, { retries: { count: 2, backoffS: 0.05 } })]);

      expect(await job.run()).to.equal('ended');

      const events = await job.events();
      expect(types(events)).to.deep.equal(['StepStarted', 'StepFailed', 'StepStarted', 'StepFailed', 'StepStarted', 'StepCompleted', 'JobSucceeded']);
      expect(ofType(events, 'StepStarted').map((event) => event.data.attempt)).to.deep.equal([1, 2, 3]);
      expect(ofType(events, 'StepFailed').map(({ data }) => [data.error, data.retryable])).to.deep.equal([
        ['attempt 1 failed', true],
        ['attempt 2 failed', true],
      ]);
      const [first, second, third] = job.calls;
      expect(second!.startedAt - first!.startedAt, 'first backoff (50 ms)').to.be.at.least(50);
      expect(third!.startedAt - second!.startedAt, 'second backoff, doubled').to.be.at.least(100);
    });

    it('fails the job when the retries are spent', async () => {
      const job = await request([scriptStep('flaky', { failRetryable: 2 }, { retries: { count: 1, backoffS: 0.05 } }), scriptStep('never')]);

      expect(await job.run()).to.equal('ended');

      const events = await job.events();
      expect(types(events)).to.deep.equal(['StepStarted', 'StepFailed', 'StepStarted', 'StepFailed', 'JobFailed']);
      expect(ofType(events, 'JobFailed')[0]?.data).to.deep.include({ step: 'flaky', error: 'attempt 2 failed' });
      expect(job.calls.map((call) => call.step)).to.deep.equal(['flaky', 'flaky']);
    });
  });

  it('interrupts a step that outlives its timeout, fires its signal, and fails the job when no retry is left', async () => {
    const job = await request([scriptStep('slow', { hang: true }, { timeoutS: 1 }), scriptStep('never')]);

    expect(await job.run()).to.equal('ended');

    const events = await job.events();
    expect(types(events)).to.deep.equal(['StepStarted', 'StepInterrupted', 'JobFailed']);
    expect(ofType(events, 'StepInterrupted')[0]?.data).to.include({ step: 'slow', reason: 'timeout' });
    expect(ofType(events, 'JobFailed')[0]?.data).to.deep.include({ step: 'slow', error: 'timed out after 1 s' });
    expect(job.calls).to.have.length(1);
    const call = job.calls[0]!;
    expect(call.abortedAt! - call.startedAt).to.be.within(950, 1500);
    expect(call.abortReason).to.have.property('name', 'StepTimedOut');
  });

  it('stops at a gate, and a later run continues with the next step once the gate is approved', async () => {
    const job = await request([scriptStep('a'), scriptStep('review', { gate: 'check the invoices' }), scriptStep('c')]);

    expect(await job.run()).to.equal('waiting');
    const gate = ofType(await job.events(), 'GateReached');
    expect(gate.map((event) => event.data)).to.have.deep.members([{ jobId: job.jobId, step: 'review', attemptId: job.calls[1]?.attemptId, message: 'check the invoices' }]);

    await job.send({ type: 'ResolveGate', step: 'review', decision: 'approved', by: 'ana' });
    expect(await job.run()).to.equal('ended');

    expect(types(await job.events())).to.deep.equal(['StepStarted', 'StepCompleted', 'StepStarted', 'GateReached', 'GateResolved', 'StepStarted', 'StepCompleted', 'JobSucceeded']);
    expect(job.calls.map((call) => call.step), 'the gate step is not run again').to.deep.equal(['a', 'review', 'c']);
  });

  it('stops a running step promptly on a pause notice, and a resumed job runs that step again as attempt 2', async () => {
    const job = await request([scriptStep('long', { hang: 1 }), scriptStep('b')]);
    const running = job.run({ signal: shutdownSignal() });
    const call = await started(job, 'long');

    await job.send({ type: 'PauseJob' });
    const notifiedAt = performance.now();
    job.notify();

    expect(await running).to.equal('paused');
    expect(call.abortedAt! - notifiedAt, 'the signal fires on the notice, not on the periodic re-read').to.be.below(1000);
    const paused = await job.events();
    expect(types(paused)).to.deep.equal(['StepStarted', 'StepInterrupted', 'JobPaused']);
    expect(ofType(paused, 'StepInterrupted')[0]?.data).to.include({ step: 'long', reason: 'pause', attemptId: call.attemptId });
    expect(job.logLines.some((line) => line.includes('long stopped (paused)')), job.logLines.join('\n')).to.equal(true);

    await job.send({ type: 'ResumeJob' });
    expect(await job.run()).to.equal('ended');

    const events = await job.events();
    expect(types(events)).to.deep.equal(['StepStarted', 'StepInterrupted', 'JobPaused', 'JobResumed', 'StepStarted', 'StepCompleted', 'StepStarted', 'StepCompleted', 'JobSucceeded']);
    expect(ofType(events, 'StepStarted').map(({ data }) => [data.step, data.attempt])).to.deep.equal([
      ['long', 1],
      ['long', 2],
      ['b', 1],
    ]);
  });

  it('stops a step whose cancel notice was lost on the periodic re-read', async () => {
    const job = await request([scriptStep('long', { hang: true }), scriptStep('b')]);
    let alive = 0;
    const running = job.run({ signal: shutdownSignal(), checkMs: 200, working: () => alive++ });
    const call = await started(job, 'long');

    await job.send({ type: 'CancelJob', reason: 'no longer needed' });
    const cancelledAt = performance.now();

    expect(await running).to.equal('ended');
    expect(call.abortedAt! - cancelledAt).to.be.below(1000);
    const events = await job.events();
    expect(types(events)).to.deep.equal(['StepStarted', 'StepInterrupted', 'JobCancelled']);
    expect(ofType(events, 'StepInterrupted')[0]?.data).to.include({ reason: 'cancel', attemptId: call.attemptId });
    expect(alive, 'the re-read also tells the queue the job is alive').to.be.at.least(1);
  });

  it('refuses the late result of an attempt a second runner superseded, and the first runner returns superseded', async () => {
    const job = await request([scriptStep('shared', { hold: true }), scriptStep('b')]);
    const first = job.run({ signal: shutdownSignal(), executor: 'first:1' });
    const firstCall = await started(job, 'shared', 1);
    // A second executor got the redelivered job and starts the step again as attempt 2.
    const second = job.run({ signal: shutdownSignal(), executor: 'second:2' });
    const secondCall = await started(job, 'shared', 2);

    firstCall.release();
    expect(await first).to.equal('superseded');
    expect(job.refusals.some((error) => error instanceof StaleAttemptError), job.refusals.join('\n')).to.equal(true);
    expect(types(await job.events()), 'the late result is not recorded').to.deep.equal(['StepStarted', 'StepStarted']);

    secondCall.release();
    expect(await second).to.equal('ended');
    const events = await job.events();
    expect(ofType(events, 'StepCompleted').map(({ data }) => [data.step, data.attemptId])).to.deep.equal([
      ['shared', secondCall.attemptId],
      ['b', job.calls[2]?.attemptId],
    ]);
    expect(ofType(events, 'StepStarted')[1]?.data.executor).to.equal('second:2');
  });

  it('resumes a step whose executor was lost as a new attempt of the same step', async () => {
    const job = await request([scriptStep('a'), scriptStep('b')]);
    await store.appendToStream(job.stream, [{ type: 'TestStepStarted', data: { jobId: job.jobId, step: 'a', attempt: 1, attemptId: 'lost', executor: 'gone:1' }, metadata: testMetadata(job.jobId) }], {
      expectedVersion: 1,
    });

    expect(await job.run()).to.equal('ended');

    const events = await job.events();
    expect(ofType(events, 'StepStarted').map(({ data }) => [data.step, data.attempt])).to.deep.equal([
      ['a', 1],
      ['a', 2],
      ['b', 1],
    ]);
    expect(job.calls.map((call) => [call.step, call.attempt])).to.deep.equal([
      ['a', 2],
      ['b', 1],
    ]);
    expect(types(events).at(-1)).to.equal('JobSucceeded');
  });

  it('rejects on shutdown while a step runs, so the bus redelivers, and records nothing for the attempt', async () => {
    const job = await request([scriptStep('long', { hang: true })]);
    const shutdown = new AbortController();
    const running: Promise<RunResult | Error> = job.run({ signal: shutdown.signal }).catch((error: Error) => error);
    const call = await started(job, 'long');

    shutdown.abort(new Error('executor shutting down'));

    const result = await running;
    expect(result).to.be.instanceOf(Error).with.property('message', 'executor shutting down');
    expect(call.abortedAt).to.be.a('number');
    expect(types(await job.events())).to.deep.equal(['StepStarted']);
  });

  it('fails the job with a clear error when a step type has no implementation', async () => {
    const job = await request([{ id: 'odd', type: 'teleport', params: {} }, scriptStep('b')]);

    expect(await job.run()).to.equal('ended');

    const events = await job.events();
    expect(types(events)).to.deep.equal(['StepStarted', 'StepFailed', 'JobFailed']);
    expect(ofType(events, 'StepFailed')[0]?.data).to.include({ step: 'odd', error: 'no implementation for step type teleport', retryable: false });
    expect(ofType(events, 'JobFailed')[0]?.data).to.deep.include({ step: 'odd', error: 'no implementation for step type teleport' });
    expect(job.calls).to.have.length(0);
  });
});
