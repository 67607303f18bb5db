import { expect } from 'chai';
import { DomainError, foldEvents } from '#shared/decider/decider.ts';
import { StaleAttemptError } from '#shared/workflow/workflowDecide.ts';
import { instanceDecider, InstanceSlugTakenError, JobSupersededError } from '#services/instances/domain/instance.decider.ts';
import { instancePlan, jobSteps, type InstanceEvent, type InstanceSettings, type JobKind, type LiveInstance, type StepFacts } from '#services/instances/domain/instance.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';

const settings: InstanceSettings = {
  slug: 'acme-dev',
  name: 'dev',
  project: 'acme',
  stage: 'development',
  erpVersion: '17.0',
  edition: 'community',
  modules: ['sale'],
  gitRepo: null,
  branch: 'main',
  source: { kind: 'empty' },
};
const requested: InstanceEvent = { type: 'InstanceRequested', data: { ...settings, jobId: 'j1', plan: instancePlan('provision', false) } };
const PROVISION = jobSteps('provision', false);
const attemptId = (jobId: string, step: string, attempt = 1) => `${jobId}-${step}-${attempt}`;
const started = (jobId: string, step: string, attempt = 1): InstanceEvent => ({ type: 'InstanceStepStarted', data: { slug: 'acme-dev', jobId, step, attempt, attemptId: attemptId(jobId, step, attempt), executor: 'e1' } });
const completed = (jobId: string, step: string, facts: StepFacts = {}, attempt = 1): InstanceEvent => ({
  type: 'InstanceStepCompleted',
  data: { slug: 'acme-dev', jobId, step, attemptId: attemptId(jobId, step, attempt), durationMs: 5, facts },
});
const startStep = (jobId: string, step: string, attempt = 1) => ({ type: 'StartStep' as const, jobId, step, attemptId: attemptId(jobId, step, attempt), executor: 'e1' });

/** The events of a job whose steps all completed. */
function completedJob(jobId: string, steps: readonly string[], kind: JobKind, status: 'running' | 'stopped' | 'sleeping' | 'destroyed'): InstanceEvent[] {
  return [
    ...steps.flatMap((step): InstanceEvent[] => [started(jobId, step), completed(jobId, step, step === 'start' ? { url: 'http://127.0.0.1:9000' } : {})]),
    { type: 'InstanceJobSucceeded', data: { slug: 'acme-dev', jobId, kind, status } },
  ];
}
const running = [requested, ...completedJob('j1', PROVISION, 'provision', 'running')];
const action = (action: 'start' | 'stop' | 'restart' | 'rebuild' | 'destroy' | 'sleep', jobId = 'j2', provisioned = true): InstanceEvent => ({
  type: 'InstanceActionRequested',
  data: { slug: 'acme-dev', action, jobId, reason: 'user', plan: instancePlan(action, provisioned) },
});
const state = (events: InstanceEvent[]) => foldEvents(instanceDecider, events) as LiveInstance;

describe('instance decider', () => {
  const spec = deciderSpec(instanceDecider);

  it('requests an instance on a free slug, queued with a provisioning job', () => {
    spec.given([]).when({ type: 'RequestInstance', settings, jobId: 'j1' }).then([requested]);
    expect(state([requested])).to.include({ status: 'queued', provisioned: false });
  });

  it('lets only a development instance ask for demo data (issue 25)', () => {
    const demo = { ...settings, stage: 'development' as const, demoData: true };
    spec.given([]).when({ type: 'RequestInstance', settings: demo, jobId: 'j1' }).then([{ type: 'InstanceRequested', data: { ...demo, jobId: 'j1', plan: instancePlan('provision', false) } }]);
    expect(state([{ type: 'InstanceRequested', data: { ...demo, jobId: 'j1', plan: instancePlan('provision', false) } }]).demoData).to.equal(true);
    for (const stage of ['staging', 'production'] as const) {
      spec.given([]).when({ type: 'RequestInstance', settings: { ...demo, stage }, jobId: 'j1' }).thenThrows(DomainError, new RegExp(`demo data is for development instances only, not ${stage}`));
    }
  });

  it('reports a taken slug so the service tries the next one', () => {
    spec.given([requested]).when({ type: 'RequestInstance', settings, jobId: 'j9' }).thenThrows(InstanceSlugTakenError);
  });

  it('carries the plan in the request, and reads the first events (no plan) with the rules of their time', () => {
    expect(state([requested]).job.plan.map((step) => step.id)).to.deep.equal(PROVISION);
    const legacy: InstanceEvent = { type: 'InstanceRequested', data: { ...settings, jobId: 'j1' } };
    expect(state([legacy]).job.plan.map((step) => step.id)).to.deep.equal(PROVISION);
    const changedRules = { ...requested, data: { ...requested.data, plan: instancePlan('start', true) } } as InstanceEvent;
    expect(state([changedRules]).job.plan.map((step) => step.id), 'the plan in the event wins').to.deep.equal(['start', 'health_check']);
  });

  it('starts the first step, then only the next one, and counts attempts after a crash', () => {
    spec.given([requested]).when(startStep('j1', 'resolve_source')).then([started('j1', 'resolve_source')]);
    spec.given([requested]).when(startStep('j1', 'build')).thenThrows(DomainError, /not the next step/);
    spec.given([requested, started('j1', 'resolve_source')]).when(startStep('j1', 'resolve_source', 2)).then([started('j1', 'resolve_source', 2)]);
    expect(state([requested, started('j1', 'resolve_source')]).status).to.equal('provisioning');
  });

  it('completes a step of its current attempt only: a late or repeated report is refused', () => {
    const begun = [requested, started('j1', 'resolve_source')];
    spec.given(begun).when({ type: 'CompleteStep', jobId: 'j1', step: 'resolve_source', attemptId: attemptId('j1', 'resolve_source'), durationMs: 5, facts: { commit: 'abc' } }).then([completed('j1', 'resolve_source', { commit: 'abc' })]);
    spec.given([...begun, completed('j1', 'resolve_source')]).when({ type: 'CompleteStep', jobId: 'j1', step: 'resolve_source', attemptId: attemptId('j1', 'resolve_source'), durationMs: 3, facts: {} }).thenThrows(StaleAttemptError);
    spec.given([...begun, started('j1', 'resolve_source', 2)]).when({ type: 'CompleteStep', jobId: 'j1', step: 'resolve_source', attemptId: attemptId('j1', 'resolve_source'), durationMs: 3, facts: {} }).thenThrows(StaleAttemptError);
    spec.given([requested]).when({ type: 'CompleteStep', jobId: 'j1', step: 'resolve_source', attemptId: 'x', durationMs: 3, facts: {} }).thenThrows(StaleAttemptError);
  });

  it('ends the job when the last step completes: running with its URL', () => {
    const s = state(running);
    expect(s).to.include({ status: 'running', provisioned: true });
    expect(s.facts.url).to.equal('http://127.0.0.1:9000');
    expect(s.job.status).to.equal('succeeded');
  });

  it('fails the instance with the step and its error', () => {
    const fail = { type: 'FailStep' as const, jobId: 'j1', step: 'resolve_source', attemptId: attemptId('j1', 'resolve_source'), durationMs: 4, error: 'branch main not found', retryable: false, logTail: [] };
    const failure: InstanceEvent[] = [
      { type: 'InstanceStepFailed', data: { slug: 'acme-dev', jobId: 'j1', step: 'resolve_source', attemptId: attemptId('j1', 'resolve_source'), durationMs: 4, error: 'branch main not found', retryable: false, logTail: [] } },
      { type: 'InstanceJobFailed', data: { slug: 'acme-dev', jobId: 'j1', step: 'resolve_source', error: 'branch main not found' } },
    ];
    spec.given([requested, started('j1', 'resolve_source')]).when(fail).then(failure);
    const events = [requested, started('j1', 'resolve_source'), ...failure];
    expect(state(events)).to.include({ status: 'failed', lastError: 'resolve_source: branch main not found' });
    const legacy: InstanceEvent = { type: 'InstanceStepFailed', data: { slug: 'acme-dev', jobId: 'j1', step: 'resolve_source', durationMs: 4, error: 'branch main not found', logTail: [] } };
    expect(state([requested, started('j1', 'resolve_source'), legacy]), 'a failed step of the first events ended the job').to.include({ status: 'failed', lastError: 'resolve_source: branch main not found' });
    spec.given(events).when({ type: 'RequestAction', action: 'start', jobId: 'j2', reason: 'user' }).thenThrows(DomainError, /cannot start acme-dev while it is failed/);
    spec.given(events).when({ type: 'RequestAction', action: 'restart', jobId: 'j2', reason: 'user' }).thenThrows(DomainError, /never provisioned; rebuild it instead/);
    spec.given(events).when({ type: 'RequestAction', action: 'rebuild', jobId: 'j2', reason: 'user' }).then([action('rebuild', 'j2', false)]);
    expect(state([...events, action('rebuild', 'j2', false)]).job.plan.map((step) => step.id)).to.deep.equal(PROVISION);
  });

  it('allows each action only from the states where it makes sense', () => {
    const stopped = [...running, action('stop'), ...completedJob('j2', ['stop'], 'stop', 'stopped')];
    spec.given(running).when({ type: 'RequestAction', action: 'start', jobId: 'j3', reason: 'user' }).thenThrows(DomainError, /cannot start acme-dev while it is running/);
    spec.given(stopped).when({ type: 'RequestAction', action: 'stop', jobId: 'j3', reason: 'user' }).thenThrows(DomainError, /cannot stop acme-dev while it is stopped/);
    spec.given(stopped).when({ type: 'RequestAction', action: 'start', jobId: 'j3', reason: 'user' }).then([action('start', 'j3')]);
    expect(state([...running, action('restart')]).job.plan.map((step) => step.id)).to.deep.equal(['stop', 'start', 'health_check']);
    expect(state([...running, action('rebuild')]).job.plan.map((step) => step.id)).to.deep.equal(jobSteps('rebuild', true));
  });

  it('refuses actions while a job runs, except destroy, which cancels it, interrupting its running step', () => {
    spec.given([requested]).when({ type: 'RequestAction', action: 'stop', jobId: 'j2', reason: 'user' }).thenThrows(DomainError, /busy with a provision job/);
    const cancelled: InstanceEvent = { type: 'InstanceJobCancelled', data: { slug: 'acme-dev', jobId: 'j1', reason: 'destroy' } };
    spec.given([requested]).when({ type: 'RequestAction', action: 'destroy', jobId: 'j2', reason: 'user' }).then([cancelled, action('destroy', 'j2', false)]);
    const installing = [requested, ...PROVISION.slice(0, 4).flatMap((step) => [started('j1', step), completed('j1', step)]), started('j1', 'install_modules')];
    spec
      .given(installing)
      .when({ type: 'RequestAction', action: 'destroy', jobId: 'j2', reason: 'user' })
      .then([
        { type: 'InstanceStepInterrupted', data: { slug: 'acme-dev', jobId: 'j1', step: 'install_modules', attemptId: attemptId('j1', 'install_modules'), reason: 'cancel' } },
        cancelled,
        action('destroy'),
      ]);
    spec.given([requested, cancelled, action('destroy', 'j2', false)]).when(startStep('j1', 'resolve_source')).thenThrows(JobSupersededError);
    spec.given([...installing, cancelled, action('destroy')]).when({ type: 'CompleteStep', jobId: 'j1', step: 'install_modules', attemptId: attemptId('j1', 'install_modules'), durationMs: 1, facts: {} }).thenThrows(JobSupersededError);
  });

  it('destroys, then purges only destroyed instances, and a purged instance is gone', () => {
    const destroyed = [...running, action('destroy'), ...completedJob('j2', jobSteps('destroy', true), 'destroy', 'destroyed')];
    expect(state(destroyed)).to.include({ status: 'destroyed', provisioned: false });
    expect(state(destroyed).facts.url).to.equal(undefined);
    spec.given(destroyed).when({ type: 'RequestAction', action: 'start', jobId: 'j3', reason: 'user' }).thenThrows(DomainError, /is destroyed/);
    spec.given(running).when({ type: 'PurgeInstance' }).thenThrows(DomainError, /destroy it before purging/);
    spec.given(destroyed).when({ type: 'PurgeInstance' }).then([{ type: 'InstancePurged', data: { slug: 'acme-dev' } }]);
    expect(() => instanceDecider.decide({ type: 'PurgeInstance' }, state([...destroyed, { type: 'InstancePurged', data: { slug: 'acme-dev' } }])))
      .to.throw(DomainError)
      .with.property('kind', 'not_found');
  });

  it('puts only running development instances to sleep', () => {
    spec.given(running).when({ type: 'RequestAction', action: 'sleep', jobId: 'j2', reason: 'idle' }).then([{ type: 'InstanceActionRequested', data: { slug: 'acme-dev', action: 'sleep', jobId: 'j2', reason: 'idle', plan: instancePlan('sleep', true) } }]);
    const production = running.map((event) => (event.type === 'InstanceRequested' ? { ...event, data: { ...event.data, stage: 'production' as const } } : event));
    spec.given(production).when({ type: 'RequestAction', action: 'sleep', jobId: 'j2', reason: 'idle' }).thenThrows(DomainError, /only development/);
    const sleeping = [...running, action('sleep'), ...completedJob('j2', ['stop'], 'sleep', 'sleeping')];
    expect(state(sleeping).status).to.equal('sleeping');
    spec.given(sleeping).when({ type: 'RequestAction', action: 'start', jobId: 'j3', reason: 'user' }).then([action('start', 'j3')]);
  });

  it('marks a running instance failed when its ERP exits, but not while a job handles it', () => {
    spec.given(running).when({ type: 'ReportProcessExit', exitCode: 137, logTail: ['x'] }).then([{ type: 'InstanceProcessExited', data: { slug: 'acme-dev', exitCode: 137, logTail: ['x'] } }]);
    expect(state([...running, { type: 'InstanceProcessExited', data: { slug: 'acme-dev', exitCode: 137, logTail: [] } }]).lastError).to.equal('the ERP process exited with code 137');
    spec.given([...running, action('restart')]).when({ type: 'ReportProcessExit', exitCode: 0, logTail: [] }).thenNothingHappens();
  });

  describe('a push during a job', () => {
    const push = (jobId: string, headCommit?: string) => ({ type: 'RequestAction' as const, action: 'rebuild' as const, jobId, reason: 'push' as const, ...(headCommit ? { headCommit } : {}) });
    const restarting = [...running, action('restart')];
    const deferred = (jobId: string, headCommit?: string): InstanceEvent => ({ type: 'InstanceRebuildDeferred', data: { slug: 'acme-dev', jobId, ...(headCommit ? { headCommit } : {}) } });

    it('is remembered, not refused, and later pushes coalesce into the one pending rebuild', () => {
      spec.given(restarting).when(push('p1', 'aaaaaaa')).then([deferred('p1', 'aaaaaaa')]);
      spec.given([...restarting, deferred('p1', 'aaaaaaa')]).when(push('p2', 'bbbbbbb')).then([deferred('p1', 'bbbbbbb')]);
      const s = state([...restarting, deferred('p1', 'aaaaaaa'), deferred('p1', 'bbbbbbb')]);
      expect(s.pendingRebuild).to.deep.equal({ jobId: 'p1' });
      expect(s.facts.branchHead).to.equal('bbbbbbb');
    });

    it('runs as one rebuild when the job succeeds', () => {
      const before = [...restarting, deferred('p1'), started('j2', 'stop'), completed('j2', 'stop'), started('j2', 'start'), completed('j2', 'start'), started('j2', 'health_check')];
      spec
        .given(before)
        .when({ type: 'CompleteStep', jobId: 'j2', step: 'health_check', attemptId: attemptId('j2', 'health_check'), durationMs: 5, facts: {} })
        .then([
          completed('j2', 'health_check'),
          { type: 'InstanceJobSucceeded', data: { slug: 'acme-dev', jobId: 'j2', kind: 'restart', status: 'running' } },
          { type: 'InstanceActionRequested', data: { slug: 'acme-dev', action: 'rebuild', jobId: 'p1', reason: 'push', plan: instancePlan('rebuild', true) } },
        ]);
    });

    it('runs when the job fails too, and a rebuild is allowed from failed', () => {
      spec
        .given([...restarting, deferred('p1'), started('j2', 'stop')])
        .when({ type: 'FailStep', jobId: 'j2', step: 'stop', attemptId: attemptId('j2', 'stop'), durationMs: 1, error: 'x', retryable: false, logTail: [] })
        .then([
          { type: 'InstanceStepFailed', data: { slug: 'acme-dev', jobId: 'j2', step: 'stop', attemptId: attemptId('j2', 'stop'), durationMs: 1, error: 'x', retryable: false, logTail: [] } },
          { type: 'InstanceJobFailed', data: { slug: 'acme-dev', jobId: 'j2', step: 'stop', error: 'x' } },
          { type: 'InstanceActionRequested', data: { slug: 'acme-dev', action: 'rebuild', jobId: 'p1', reason: 'push', plan: instancePlan('rebuild', true) } },
        ]);
    });

    it('is dropped by a destroy, and refused while one runs', () => {
      const destroying = [...restarting, deferred('p1'), action('destroy', 'j3')];
      expect(state(destroying).pendingRebuild).to.equal(null);
      spec.given(destroying).when(push('p2')).thenThrows(DomainError, /busy with a destroy job/);
    });

    it('rebuilds at once when no job runs, recording the announced head', () => {
      spec.given(running).when(push('p1', 'ccccccc')).then([{ type: 'InstanceActionRequested', data: { slug: 'acme-dev', action: 'rebuild', jobId: 'p1', reason: 'push', headCommit: 'ccccccc', plan: instancePlan('rebuild', true) } }]);
    });
  });

  it('says an unknown instance is not found', () => {
    expect(() => instanceDecider.decide({ type: 'RequestAction', action: 'stop', jobId: 'j', reason: 'user' }, instanceDecider.initialState())).to.throw(DomainError).with.property('kind', 'not_found');
  });
});

describe('instance event schemas', () => {
  const samples: InstanceEvent[] = [
    requested,
    { type: 'InstanceRequested', data: { ...settings, source: { kind: 'upload', uploadId: '0b9e4c1e-2f7a-4c1d-9d2e-1f0a8b7c6d5e', dumpFormat: 'plain', hasFilestore: true }, jobId: 'j1' } },
    { type: 'InstanceRequested', data: { ...settings, source: { kind: 'clone', from: 'acme-prod' }, jobId: 'j1' } },
    { type: 'InstanceRequested', data: { ...settings, source: { kind: 'migration', migration: 'acme-17', run: 2, database: 'forja_mig_acme_17', filestoreDir: '/var/lib/forja/migrations/acme-17/work/filestore' }, jobId: 'j1' } },
    ...running,
    action('sleep'),
    { type: 'InstanceStepFailed', data: { slug: 'acme-dev', jobId: 'j2', step: 'start', durationMs: 1, error: 'x', logTail: ['a'] } },
    { type: 'InstanceProcessExited', data: { slug: 'acme-dev', exitCode: null, logTail: [] } },
    { type: 'InstancePurged', data: { slug: 'acme-dev' } },
    { type: 'InstanceRebuildDeferred', data: { slug: 'acme-dev', jobId: 'p1', headCommit: 'abcdef1' } },
    { type: 'InstanceActionRequested', data: { slug: 'acme-dev', action: 'restart', jobId: 'j5', reason: 'boot' } },
    { type: 'InstanceStepCompleted', data: { slug: 'acme-dev', jobId: 'j1', step: 'start', durationMs: 5, facts: { url: 'http://127.0.0.1:21000', port: 21000, branchHead: 'abc', commit: 'abc' } } },
    { type: 'InstanceStepInterrupted', data: { slug: 'acme-dev', jobId: 'j1', step: 'install_modules', attemptId: 'a', reason: 'cancel' } },
    { type: 'InstanceJobCancelled', data: { slug: 'acme-dev', jobId: 'j1', reason: 'destroy' } },
    { type: 'InstanceJobFailed', data: { slug: 'acme-dev', jobId: 'j1', step: 'start', error: 'port taken' } },
    { type: 'InstanceStepFailed', data: { slug: 'acme-dev', jobId: 'j2', step: 'start', attemptId: 'a', durationMs: 1, error: 'x', retryable: true, logTail: [] } },
    { type: 'InstanceActionRequested', data: { slug: 'acme-dev', action: 'restart', jobId: 'j5', reason: 'user', plan: [{ id: 'upgrade', type: 'upgrade', params: { sql: 'x' }, timeoutS: 60, retries: { count: 2, backoffS: 1.5 } }] } },
    { type: 'InstanceRequested', data: { ...settings, jobId: 'j1' } },
  ];
  for (const event of samples) {
    it(`${event.type} matches schemas/events/${event.type}.v1.json`, () => {
      const validate = schemaValidator(`events/${event.type}.v1.json`);
      expect(validate(event.data), describeErrors(validate)).to.equal(true);
    });
  }
});
