import { expect } from 'chai';
import { DomainError } from '#shared/decider/decider.ts';
import { planStep, type JobPlan } from '#shared/workflow/plan.ts';
import { JobSupersededError, StaleAttemptError } from '#shared/workflow/workflowDecide.ts';
import { asWorkflowEvent, type WorkflowEvent } from '#shared/workflow/workflowEvents.ts';
import { workflowSpec } from '#test/support/workflowSpec.ts';

const plan: JobPlan = {
  jobId: 'j1',
  kind: 'migrate',
  plan: [planStep('restore'), planStep('upgrade', { retries: { count: 2, backoffS: 5 }, timeoutS: 60 }), planStep('check')],
};
const [restore, upgrade, check] = plan.plan as [JobPlan['plan'][number], JobPlan['plan'][number], JobPlan['plan'][number]];
const spec = workflowSpec(plan);

const started = (step: string, attempt = 1, attemptId = `${step}-${attempt}`): WorkflowEvent => ({ type: 'StepStarted', data: { jobId: 'j1', step, attempt, attemptId, executor: 'e1' } });
const completed = (step: string, attemptId = `${step}-1`): WorkflowEvent => ({ type: 'StepCompleted', data: { jobId: 'j1', step, attemptId, durationMs: 3, facts: {} } });
const failed = (step: string, retryable: boolean, attemptId = `${step}-1`): WorkflowEvent => ({
  type: 'StepFailed',
  data: { jobId: 'j1', step, attemptId, durationMs: 3, error: 'boom', retryable, logTail: [] },
});
const restored = [started('restore'), completed('restore')];

describe('workflow kernel', () => {
  describe('decideNext', () => {
    it('runs the first step of a new job', () => spec.given([]).thenNext({ type: 'run', step: restore, attempt: 1, delayMs: 0 }));

    it('runs the next step once one is completed', () => spec.given(restored).thenNext({ type: 'run', step: upgrade, attempt: 1, delayMs: 0 }));

    it('runs a step whose executor was lost again, as a new attempt (resume, not a new job)', () =>
      spec.given([...restored, started('upgrade')]).thenNext({ type: 'run', step: upgrade, attempt: 2, delayMs: 0 }));

    it('retries a retryable failure within the policy, after its backoff doubling each time', () => {
      spec.given([...restored, started('upgrade'), failed('upgrade', true)]).thenNext({ type: 'run', step: upgrade, attempt: 2, delayMs: 5000 });
      spec.given([...restored, started('upgrade'), failed('upgrade', true), started('upgrade', 2), failed('upgrade', true, 'upgrade-2')]).thenNext({ type: 'run', step: upgrade, attempt: 3, delayMs: 10_000 });
    });

    it('fails on a failure that is not retryable, or when the retries are spent', () => {
      spec.given([...restored, started('upgrade'), failed('upgrade', false)]).thenNext({ type: 'fail', step: 'upgrade', error: 'boom' });
      spec.given([started('restore'), failed('restore', true, 'restore-1')]).thenNext({ type: 'fail', step: 'restore', error: 'boom' });
    });

    it('says complete when every step is done, skipped or reused', () => {
      const skipped: WorkflowEvent = { type: 'StepCompleted', data: { jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', durationMs: 0, facts: {}, as: 'skipped' } };
      const reused: WorkflowEvent = { type: 'StepCompleted', data: { jobId: 'j1', step: 'check', attemptId: 'check-1', durationMs: 0, facts: { dump: 'a' }, as: 'reused' } };
      const given = spec.given([...restored, started('upgrade'), skipped, started('check'), reused]);
      given.thenNext({ type: 'complete' });
      given.thenJob((job) => expect([job.steps['upgrade']?.status, job.steps['check']?.status]).to.deep.equal(['skipped', 'reused']));
    });

    it('waits at a gate, and is paused while paused', () => {
      spec.given([...restored, started('upgrade'), { type: 'GateReached', data: { jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', message: 'check the invoices' } }]).thenNext({ type: 'wait', step: 'upgrade', gate: 'check the invoices' });
      spec.given([...restored, { type: 'JobPaused', data: { jobId: 'j1' } }]).thenNext({ type: 'paused' });
    });

    it('has nothing to do for an ended job', () => {
      spec.given([{ type: 'JobCancelled', data: { jobId: 'j1', reason: 'destroy' } }]).thenNext({ type: 'ended', status: 'cancelled' });
      spec.given([...restored, started('upgrade'), failed('upgrade', false), { type: 'JobFailed', data: { jobId: 'j1', step: 'upgrade', error: 'boom' } }]).thenNext({ type: 'ended', status: 'failed' });
    });

    it('ignores events of another job and steps outside the plan', () => {
      const other: WorkflowEvent = { type: 'StepStarted', data: { jobId: 'j0', step: 'restore', attempt: 1 } };
      const stranger: WorkflowEvent = { type: 'StepStarted', data: { jobId: 'j1', step: 'nope', attempt: 1 } };
      spec.given([other, stranger]).thenJob((job) => expect(job.status).to.equal('queued'));
    });

    it('reads a failed step of the first instance events (no retryable field) as the end of the job', () => {
      const legacy: WorkflowEvent = { type: 'StepFailed', data: { jobId: 'j1', step: 'restore', durationMs: 1, error: 'boom', logTail: [] } };
      spec.given([{ type: 'StepStarted', data: { jobId: 'j1', step: 'restore', attempt: 1 } }, legacy]).thenJob((job) => expect(job).to.include({ status: 'failed', error: 'restore: boom' }));
    });
  });

  describe('step commands', () => {
    it('starts the next step with a new attempt id and the executor', () =>
      spec.given(restored).when({ type: 'StartStep', jobId: 'j1', step: 'upgrade', attemptId: 'a', executor: 'e1' }).then([{ type: 'StepStarted', data: { jobId: 'j1', step: 'upgrade', attempt: 1, attemptId: 'a', executor: 'e1' } }]));

    it('refuses to start a step that is not next', () =>
      spec.given([]).when({ type: 'StartStep', jobId: 'j1', step: 'check', attemptId: 'a', executor: 'e1' }).thenThrows(DomainError, /check is not the next step of job j1 \(restore is\)/));

    it('records the job as succeeded in the same append as its last step', () =>
      spec
        .given([...restored, started('upgrade'), completed('upgrade'), started('check')])
        .when({ type: 'CompleteStep', jobId: 'j1', step: 'check', attemptId: 'check-1', durationMs: 4, facts: { ok: true } })
        .then([
          { type: 'StepCompleted', data: { jobId: 'j1', step: 'check', attemptId: 'check-1', durationMs: 4, facts: { ok: true } } },
          { type: 'JobSucceeded', data: { jobId: 'j1' } },
        ]));

    it('starts the next step in the same append when asked, but not after the last one', () => {
      spec
        .given(restored)
        .when({ type: 'CompleteStep', jobId: 'j1', step: 'restore', attemptId: 'restore-1', durationMs: 2, facts: {}, next: { attemptId: 'u1', executor: 'e1' } })
        .thenThrows(StaleAttemptError);
      spec
        .given([started('restore')])
        .when({ type: 'CompleteStep', jobId: 'j1', step: 'restore', attemptId: 'restore-1', durationMs: 2, facts: {}, next: { attemptId: 'u1', executor: 'e1' } })
        .then([
          { type: 'StepCompleted', data: { jobId: 'j1', step: 'restore', attemptId: 'restore-1', durationMs: 2, facts: {} } },
          { type: 'StepStarted', data: { jobId: 'j1', step: 'upgrade', attempt: 1, attemptId: 'u1', executor: 'e1' } },
        ]);
      spec
        .given([...restored, started('upgrade'), completed('upgrade'), started('check')])
        .when({ type: 'CompleteStep', jobId: 'j1', step: 'check', attemptId: 'check-1', durationMs: 2, facts: {}, next: { attemptId: 'x', executor: 'e1' } })
        .then([
          { type: 'StepCompleted', data: { jobId: 'j1', step: 'check', attemptId: 'check-1', durationMs: 2, facts: {} } },
          { type: 'JobSucceeded', data: { jobId: 'j1' } },
        ]);
    });

    it('refuses a result from an attempt that is no longer current', () => {
      const rerun = [...restored, started('upgrade', 1, 'old'), started('upgrade', 2, 'new')];
      spec.given(rerun).when({ type: 'CompleteStep', jobId: 'j1', step: 'upgrade', attemptId: 'old', durationMs: 1, facts: {} }).thenThrows(StaleAttemptError, /attempt old of step upgrade/);
      spec.given(rerun).when({ type: 'FailStep', jobId: 'j1', step: 'upgrade', attemptId: 'old', durationMs: 1, error: 'x', retryable: false, logTail: [] }).thenThrows(StaleAttemptError);
      spec.given(restored).when({ type: 'CompleteStep', jobId: 'j1', step: 'restore', attemptId: 'restore-1', durationMs: 1, facts: {} }).thenThrows(StaleAttemptError);
    });

    it('fails the job with a failure the policy does not retry, and only records a retryable one', () => {
      const running = [...restored, started('upgrade')];
      const fail = (retryable: boolean) => ({ type: 'FailStep', jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', durationMs: 2, error: 'boom', retryable, logTail: ['x'] }) as const;
      const stepFailed = (retryable: boolean): WorkflowEvent => ({ type: 'StepFailed', data: { jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', durationMs: 2, error: 'boom', retryable, logTail: ['x'] } });
      spec.given(running).when(fail(true)).then([stepFailed(true)]);
      spec.given(running).when(fail(false)).then([stepFailed(false), { type: 'JobFailed', data: { jobId: 'j1', step: 'upgrade', error: 'boom' } }]);
    });

    it('counts a timeout as a retryable failure, failing the job once retries are spent', () => {
      const timeout = (attemptId: string) => ({ type: 'InterruptStep', jobId: 'j1', step: 'upgrade', attemptId, reason: 'timeout', durationMs: 60_000 }) as const;
      const interrupted = (attemptId: string): WorkflowEvent => ({ type: 'StepInterrupted', data: { jobId: 'j1', step: 'upgrade', attemptId, reason: 'timeout', durationMs: 60_000 } });
      spec.given([...restored, started('upgrade')]).when(timeout('upgrade-1')).then([interrupted('upgrade-1')]);
      const third = [...restored, started('upgrade'), interrupted('upgrade-1'), started('upgrade', 2), interrupted('upgrade-2'), started('upgrade', 3)];
      spec.given(third).when(timeout('upgrade-3')).then([interrupted('upgrade-3'), { type: 'JobFailed', data: { jobId: 'j1', step: 'upgrade', error: 'timed out after 60 s' } }]);
    });
  });

  describe('gates, pause, resume and cancel', () => {
    const atGate = [...restored, started('upgrade'), { type: 'GateReached', data: { jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', message: 'check' } } as WorkflowEvent];

    it('continues after an approved gate and fails the job on a rejected one', () => {
      spec.given(atGate).when({ type: 'ResolveGate', jobId: 'j1', step: 'upgrade', decision: 'approved', by: 'ana' }).then([{ type: 'GateResolved', data: { jobId: 'j1', step: 'upgrade', decision: 'approved', by: 'ana' } }]);
      spec.given([...atGate, { type: 'GateResolved', data: { jobId: 'j1', step: 'upgrade', decision: 'approved', by: 'ana' } }]).thenNext({ type: 'run', step: check, attempt: 1, delayMs: 0 });
      spec
        .given(atGate)
        .when({ type: 'ResolveGate', jobId: 'j1', step: 'upgrade', decision: 'rejected', by: 'ana' })
        .then([
          { type: 'GateResolved', data: { jobId: 'j1', step: 'upgrade', decision: 'rejected', by: 'ana' } },
          { type: 'JobFailed', data: { jobId: 'j1', step: 'upgrade', error: 'rejected by ana' } },
        ]);
      spec.given(restored).when({ type: 'ResolveGate', jobId: 'j1', step: 'upgrade', decision: 'approved', by: 'ana' }).thenThrows(DomainError, /not waiting at a gate/);
    });

    it('pauses by interrupting the running step in the same append, and resumes from that step', () => {
      const running = [...restored, started('upgrade')];
      const paused: WorkflowEvent[] = [
        { type: 'StepInterrupted', data: { jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', reason: 'pause' } },
        { type: 'JobPaused', data: { jobId: 'j1' } },
      ];
      spec.given(running).when({ type: 'PauseJob', jobId: 'j1' }).then(paused);
      spec.given([...running, ...paused]).when({ type: 'StartStep', jobId: 'j1', step: 'upgrade', attemptId: 'b', executor: 'e1' }).thenThrows(DomainError, /paused/);
      spec.given([...running, ...paused]).when({ type: 'CompleteStep', jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', durationMs: 1, facts: {} }).thenThrows(StaleAttemptError);
      spec.given([...running, ...paused]).when({ type: 'ResumeJob', jobId: 'j1' }).then([{ type: 'JobResumed', data: { jobId: 'j1' } }]);
      spec.given([...running, ...paused, { type: 'JobResumed', data: { jobId: 'j1' } }]).thenNext({ type: 'run', step: upgrade, attempt: 2, delayMs: 0 });
      spec.given(running).when({ type: 'ResumeJob', jobId: 'j1' }).thenThrows(DomainError, /running, not paused/);
    });

    it('resumes a job paused at a gate back to waiting', () =>
      spec.given([...atGate, { type: 'JobPaused', data: { jobId: 'j1' } }, { type: 'JobResumed', data: { jobId: 'j1' } }]).thenJob((job) => expect(job.status).to.equal('waiting')));

    it('cancels by interrupting the running step, and refuses anything after', () => {
      const running = [...restored, started('upgrade')];
      const cancelled: WorkflowEvent[] = [
        { type: 'StepInterrupted', data: { jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', reason: 'cancel' } },
        { type: 'JobCancelled', data: { jobId: 'j1', reason: 'destroy' } },
      ];
      spec.given(running).when({ type: 'CancelJob', jobId: 'j1', reason: 'destroy' }).then(cancelled);
      spec.given([...running, ...cancelled]).when({ type: 'CompleteStep', jobId: 'j1', step: 'upgrade', attemptId: 'upgrade-1', durationMs: 1, facts: {} }).thenThrows(JobSupersededError);
      spec.given([...running, ...cancelled]).when({ type: 'CancelJob', jobId: 'j1', reason: 'again' }).thenNothingHappens();
    });

    it('finishes a job whose steps are all done but whose end was never recorded', () => {
      spec.given([...restored, started('upgrade'), completed('upgrade'), started('check'), completed('check')]).when({ type: 'FinishJob', jobId: 'j1' }).then([{ type: 'JobSucceeded', data: { jobId: 'j1' } }]);
      spec.given(restored).when({ type: 'FinishJob', jobId: 'j1' }).thenNothingHappens();
    });
  });

  it('reads a host event by its prefix and leaves the host’s own events alone', () => {
    expect(asWorkflowEvent('Instance', { type: 'InstanceStepStarted', data: { jobId: 'j' } })).to.deep.equal({ type: 'StepStarted', data: { jobId: 'j' } });
    expect(asWorkflowEvent('Instance', { type: 'InstancePurged', data: {} })).to.equal(null);
    expect(asWorkflowEvent('Instance', { type: 'MigrationStepStarted', data: {} })).to.equal(null);
  });
});
