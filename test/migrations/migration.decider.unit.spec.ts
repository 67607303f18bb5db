import { expect } from 'chai';
import { DomainError, foldEvents } from '#shared/decider/decider.ts';
import { planStep } from '#shared/workflow/plan.ts';
import { JobSupersededError, StaleAttemptError } from '#shared/workflow/workflowDecide.ts';
import { migrationDecider, MigrationSlugTakenError } from '#services/migrations/domain/migration.decider.ts';
import { checkpointOf, type LiveMigration, type MigrationEvent, type MigrationSettings } from '#services/migrations/domain/migration.ts';
import { allowedMigrationActions, migrationActionView, notOffered, offeredMigrationActions } from '#services/migrations/domain/migrationActions.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { migrationSettings } from '#test/support/migrationSettings.ts';

const settings: MigrationSettings = migrationSettings();
const PLAN = [planStep('space', { params: { phase: 'preflight' } }), planStep('fetch'), planStep('restore'), planStep('upgrade'), planStep('verify')];
const created: MigrationEvent = { type: 'MigrationCreated', data: settings };
const requested = (number: number, jobId: string, extra: Partial<Extract<MigrationEvent, { type: 'MigrationRunRequested' }>['data']> = {}): MigrationEvent => ({
  type: 'MigrationRunRequested',
  data: { slug: 'acme-17', number, jobId, kind: 'run', plan: PLAN, resumedFrom: null, reused: {}, skipped: [], skipPreflight: false, ...extra },
});
const run = (number: number, jobId: string) => ({ slug: 'acme-17', number, jobId });
const started = (number: number, jobId: string, step: string, attempt = 1): MigrationEvent => ({ type: 'MigrationStepStarted', data: { ...run(number, jobId), step, attempt, attemptId: `${jobId}-${step}-${attempt}`, executor: 'e1' } });
const completed = (number: number, jobId: string, step: string, facts: object = {}): MigrationEvent => ({ type: 'MigrationStepCompleted', data: { ...run(number, jobId), step, attemptId: `${jobId}-${step}-1`, durationMs: 5, facts } });
const failedAt = (number: number, jobId: string, step: string): MigrationEvent[] => [
  { type: 'MigrationStepFailed', data: { ...run(number, jobId), step, attemptId: `${jobId}-${step}-1`, durationMs: 5, error: 'boom', retryable: false, logTail: [] } },
  { type: 'MigrationJobFailed', data: { ...run(number, jobId), step, error: 'boom' } },
];
const state = (events: MigrationEvent[]) => foldEvents(migrationDecider, events) as LiveMigration;
/** Run 1 fetched and restored, then failed upgrading. */
const failedUpgrade = [
  created,
  requested(1, 'r1'),
  ...['space', 'fetch', 'restore'].flatMap((step) => [started(1, 'r1', step), completed(1, 'r1', step, step === 'fetch' ? { sha256: 'f'.repeat(64) } : {})]),
  started(1, 'r1', 'upgrade'),
  ...failedAt(1, 'r1', 'upgrade'),
];

describe('migration decider', () => {
  const spec = deciderSpec(migrationDecider);

  it('creates a draft, once per slug', () => {
    spec.given([]).when({ type: 'CreateMigration', settings }).then([created]);
    expect(state([created])).to.include({ status: 'draft', lastNumber: 0 });
    spec.given([created]).when({ type: 'CreateMigration', settings }).thenThrows(MigrationSlugTakenError);
  });

  it('runs from scratch with the plan it is given, numbering runs', () => {
    spec.given([created]).when({ type: 'RequestRun', jobId: 'r1', plan: PLAN }).then([requested(1, 'r1')]);
    expect(state([created, requested(1, 'r1')]).status).to.equal('queued');
    expect(state([created, requested(1, 'r1'), started(1, 'r1', 'space')]).status).to.equal('running');
  });

  it('refuses a run while one is live, and a run of a draft without input', () => {
    spec.given([created, requested(1, 'r1')]).when({ type: 'RequestRun', jobId: 'r2', plan: PLAN }).thenThrows(DomainError, /is queued; pause or stop its run first/);
    const noInput = { ...created, data: { ...settings, input: { mode: 'none' as const } } };
    spec.given([noInput]).when({ type: 'RequestRun', jobId: 'r1', plan: PLAN }).thenThrows(DomainError, /no input yet/);
  });

  it('resumes a failed run from the failed step, reusing what it completed (no re-download, no re-restore)', () => {
    expect(state(failedUpgrade).status).to.equal('errored');
    expect(checkpointOf(state(failedUpgrade).runs[0]!.job)).to.equal('upgrade');
    spec
      .given(failedUpgrade)
      .when({ type: 'RequestRun', jobId: 'r2', plan: [planStep('other')] })
      .then([requested(2, 'r2', { kind: 'resume', resumedFrom: 1, reused: { space: {}, fetch: { sha256: 'f'.repeat(64) }, restore: {} } })]);
    const resumed = state([...failedUpgrade, requested(2, 'r2', { kind: 'resume', resumedFrom: 1, reused: { space: {}, fetch: {}, restore: {} } })]);
    const job = resumed.runs[1]!.job;
    expect(['space', 'fetch', 'restore', 'upgrade'].map((id) => job.steps[id]?.status)).to.deep.equal(['reused', 'reused', 'reused', 'pending']);
  });

  it('runs anyway past a failed pre-flight only, skipping it and recording why', () => {
    const PLAN_INPUT_FIRST = [planStep('fetch'), planStep('restore'), planStep('space', { params: { phase: 'preflight' } }), planStep('upgrade')];
    const restoredThenFailed = [
      created,
      requested(1, 'r1', { plan: PLAN_INPUT_FIRST }),
      ...['fetch', 'restore'].flatMap((step) => [started(1, 'r1', step), completed(1, 'r1', step, { step })]),
      started(1, 'r1', 'space'),
      ...failedAt(1, 'r1', 'space'),
    ];
    spec
      .given(restoredThenFailed)
      .when({ type: 'RunAnyway', jobId: 'r2', reason: 'checked by hand' })
      .then([requested(2, 'r2', { plan: PLAN_INPUT_FIRST, kind: 'run-anyway', resumedFrom: 1, reused: { fetch: { step: 'fetch' }, restore: { step: 'restore' } }, skipped: ['space'], skipPreflight: true, reason: 'checked by hand' })]);
    const preflightFailed = [created, requested(1, 'r1'), started(1, 'r1', 'space'), ...failedAt(1, 'r1', 'space')];
    spec.given(failedUpgrade).when({ type: 'RunAnyway', jobId: 'r2', reason: 'disk is fine' }).thenThrows(DomainError, /only overrides a run that failed in pre-flight/);
    spec.given(preflightFailed).when({ type: 'RunAnyway', jobId: 'r2', reason: '  ' }).thenThrows(DomainError, /say why/);
    spec
      .given(preflightFailed)
      .when({ type: 'RunAnyway', jobId: 'r2', reason: 'the disk check counts a volume we do not use' })
      .then([requested(2, 'r2', { kind: 'run-anyway', resumedFrom: 1, skipped: ['space'], skipPreflight: true, reason: 'the disk check counts a volume we do not use' })]);
  });

  it('pauses a running run by interrupting its step, and resumes the same run', () => {
    const upgrading = [created, requested(1, 'r1'), started(1, 'r1', 'space')];
    const paused: MigrationEvent[] = [
      { type: 'MigrationStepInterrupted', data: { ...run(1, 'r1'), step: 'space', attemptId: 'r1-space-1', reason: 'pause' } },
      { type: 'MigrationJobPaused', data: run(1, 'r1') },
    ];
    spec.given(upgrading).when({ type: 'PauseRun' }).then(paused);
    expect(state([...upgrading, ...paused]).status).to.equal('paused');
    spec.given([...upgrading, ...paused]).when({ type: 'RequestRun', jobId: 'r2', plan: PLAN }).thenThrows(DomainError, /is paused; resume it/);
    spec.given([...upgrading, ...paused]).when({ type: 'ResumeRun' }).then([{ type: 'MigrationJobResumed', data: run(1, 'r1') }]);
    spec.given(upgrading).when({ type: 'ResumeRun' }).thenThrows(DomainError, /only a paused run resumes/);
    spec.given([created]).when({ type: 'PauseRun' }).thenThrows(DomainError, /cannot pause acme-17 while it is draft/);
  });

  it('resolves a gate of the last run only, with its actor', () => {
    const atGate = [created, requested(1, 'r1'), started(1, 'r1', 'space'), { type: 'MigrationGateReached', data: { ...run(1, 'r1'), step: 'space', attemptId: 'r1-space-1', message: 'approve?' } } as MigrationEvent];
    expect(state(atGate).status).to.equal('waiting');
    spec.given(atGate).when({ type: 'ResolveRunGate', number: 1, decision: 'approved', by: 'ana@example.com', note: 'ok' }).then([
      { type: 'MigrationGateResolved', data: { ...run(1, 'r1'), step: 'space', decision: 'approved', by: 'ana@example.com', note: 'ok' } },
    ]);
    spec.given(atGate).when({ type: 'ResolveRunGate', number: 2, decision: 'approved', by: 'ana' }).thenThrows(DomainError, /has no run 2/);
    spec.given([created, requested(1, 'r1')]).when({ type: 'ResolveRunGate', number: 1, decision: 'approved', by: 'ana' }).thenThrows(DomainError, /not waiting at a gate/);
  });

  it('stops back to draft, cancelling a live run first, and keeps numbering after', () => {
    const running = [created, requested(1, 'r1'), started(1, 'r1', 'space')];
    spec.given(running).when({ type: 'StopMigration' }).then([
      { type: 'MigrationStepInterrupted', data: { ...run(1, 'r1'), step: 'space', attemptId: 'r1-space-1', reason: 'cancel' } },
      { type: 'MigrationJobCancelled', data: { ...run(1, 'r1'), reason: 'stop' } },
      { type: 'MigrationStopped', data: { slug: 'acme-17', runs: [1] } },
    ]);
    spec.given(failedUpgrade).when({ type: 'StopMigration' }).then([{ type: 'MigrationStopped', data: { slug: 'acme-17', runs: [1] } }]);
    spec.given([created]).when({ type: 'StopMigration' }).thenThrows(DomainError, /draft already/);
    const stopped = [...failedUpgrade, { type: 'MigrationStopped', data: { slug: 'acme-17', runs: [1] } } as MigrationEvent];
    expect(state(stopped)).to.include({ status: 'draft', lastNumber: 1 });
    spec.given(stopped).when({ type: 'RequestRun', jobId: 'r2', plan: PLAN }).then([requested(2, 'r2')]);
  });

  it('edits the route only in draft; afterwards only the contract and who is notified', () => {
    spec.given([created]).when({ type: 'EditMigration', changes: { purpose: 'production', notifyTo: ['ops@example.com'] } }).then([
      { type: 'MigrationEdited', data: { slug: 'acme-17', changes: { purpose: 'production', notifyTo: ['ops@example.com'] } } },
    ]);
    spec.given(failedUpgrade).when({ type: 'EditMigration', changes: { purpose: 'production', contract: 'M1234' } }).then([{ type: 'MigrationEdited', data: { slug: 'acme-17', changes: { contract: 'M1234' } } }]);
    spec.given(failedUpgrade).when({ type: 'EditMigration', changes: { purpose: 'production' } }).thenNothingHappens();
  });

  it('deletes only with the typed name, cancelling a live run', () => {
    spec.given([created]).when({ type: 'DeleteMigration', confirmName: 'acme' }).thenThrows(DomainError, /type the migration's name/);
    spec.given([created]).when({ type: 'DeleteMigration', confirmName: ' Acme to 17 ' }).then([{ type: 'MigrationDeleted', data: { slug: 'acme-17' } }]);
    expect(() => migrationDecider.decide({ type: 'PauseRun' }, state([created, { type: 'MigrationDeleted', data: { slug: 'acme-17' } }]))).to.throw(DomainError).with.property('kind', 'not_found');
  });

  it('takes step reports for the last live run only', () => {
    spec.given([created, requested(1, 'r1')]).when({ type: 'StartStep', jobId: 'r1', step: 'space', attemptId: 'a', executor: 'e1' }).then([
      { type: 'MigrationStepStarted', data: { ...run(1, 'r1'), step: 'space', attempt: 1, attemptId: 'a', executor: 'e1' } },
    ]);
    spec.given(failedUpgrade).when({ type: 'StartStep', jobId: 'r1', step: 'upgrade', attemptId: 'a', executor: 'e1' }).thenThrows(JobSupersededError);
    spec.given([created, requested(1, 'r1'), started(1, 'r1', 'space')]).when({ type: 'CompleteStep', jobId: 'r1', step: 'space', attemptId: 'old', durationMs: 1, facts: {} }).thenThrows(StaleAttemptError);
  });

  it('runs a migrated migration again from scratch (the interface), but the page offers Run only once a resync changed the recipe', () => {
    const succeeded: MigrationEvent = { type: 'MigrationJobSucceeded', data: run(1, 'r1') };
    const migrated = [created, requested(1, 'r1'), ...PLAN.flatMap((step) => [started(1, 'r1', step.id), completed(1, 'r1', step.id)]), succeeded];
    expect(state(migrated).status).to.equal('migrated');
    spec.given(migrated).when({ type: 'RequestRun', jobId: 'r2', plan: PLAN }).then([requested(2, 'r2')]);
    expect(allowedMigrationActions(migrationActionView(state(migrated)))).to.deep.equal(['run', 'stop', 'delete']);
    expect(offeredMigrationActions(migrationActionView(state(migrated)))).to.deep.equal(['stop', 'delete']);
    expect(notOffered('run', migrationActionView(state(migrated)))).to.match(/is migrated with its current recipe: resync it to a changed recipe to run it again/);
    const recipe = { key: settings.recipe.key, sha256: 'b'.repeat(64), text: 'format: 1\n' };
    const resynced = [...migrated, ...migrationDecider.decide({ type: 'ResyncMigration', decision: 'adopt', recipe, plan: PLAN, reuse: { reuse: [], checkpoint: null, restoreAgain: false }, changes: [] }, state(migrated))];
    expect(offeredMigrationActions(migrationActionView(state(resynced)))).to.deep.equal(['run', 'stop', 'delete']);
    spec.given(resynced).when({ type: 'RequestRun', jobId: 'r2', plan: PLAN }).then([requested(2, 'r2')]);
  });

  it('offers the actions the state allows', () => {
    expect(allowedMigrationActions(migrationActionView(state([created])))).to.deep.equal(['run', 'delete']);
    expect(allowedMigrationActions(migrationActionView(state(failedUpgrade)))).to.deep.equal(['run', 'stop', 'delete']);
    expect(allowedMigrationActions(migrationActionView(state([created, requested(1, 'r1'), started(1, 'r1', 'space')])))).to.deep.equal(['pause', 'stop', 'delete']);
  });
});

describe('migration event schemas', () => {
  const decided = (events: MigrationEvent[], command: Parameters<typeof migrationDecider.decide>[0]) => migrationDecider.decide(command, state(events));
  const atGate = [created, requested(1, 'r1'), started(1, 'r1', 'space'), { type: 'MigrationGateReached', data: { ...run(1, 'r1'), step: 'space', attemptId: 'r1-space-1', message: 'approve?' } } as MigrationEvent];
  const preflightFailed = [created, requested(1, 'r1'), started(1, 'r1', 'space'), ...failedAt(1, 'r1', 'space')];
  const samples: MigrationEvent[] = [
    ...failedUpgrade,
    { ...created, data: { ...settings, input: { mode: 'upload', uploadId: 'u1', dumpName: 'acme.dump', filestoreName: null, bytes: 10, sha256: null }, contract: 'M12345678' } },
    ...decided(failedUpgrade, { type: 'RequestRun', jobId: 'r2', plan: PLAN }),
    ...decided(preflightFailed, { type: 'RunAnyway', jobId: 'r2', reason: 'checked by hand' }),
    ...decided([created, requested(1, 'r1'), started(1, 'r1', 'space')], { type: 'PauseRun' }),
    ...decided([created, requested(1, 'r1'), started(1, 'r1', 'space')], { type: 'StopMigration' }),
    ...decided(atGate, { type: 'ResolveRunGate', number: 1, decision: 'rejected', by: 'ana@example.com', note: 'no' }),
    ...decided([created, requested(1, 'r1'), started(1, 'r1', 'space')], { type: 'CompleteStep', jobId: 'r1', step: 'space', attemptId: 'r1-space-1', durationMs: 1, facts: { warnings: ['x'] }, next: { attemptId: 'b', executor: 'e1' } }),
    ...decided([created, requested(1, 'r1'), started(1, 'r1', 'space')], { type: 'InterruptStep', jobId: 'r1', step: 'space', attemptId: 'r1-space-1', reason: 'timeout', durationMs: 9 }),
    atGate.at(-1)!,
    { type: 'MigrationJobResumed', data: run(1, 'r1') },
    { type: 'MigrationJobSucceeded', data: run(1, 'r1') },
    { type: 'MigrationEdited', data: { slug: 'acme-17', changes: { contract: 'M1', notifyTo: ['ops@example.com'] } } },
    { type: 'MigrationDeleted', data: { slug: 'acme-17' } },
    { ...created, data: { ...settings, workingDatabase: 'forjamig_acme_17', checkpointDatabase: 'forjack_acme_17' } },
    ...decided([created, requested(1, 'r1'), started(1, 'r1', 'space')], { type: 'RecordWorkingInstance', jobId: 'r1' }),
  ];
  const types = new Set(samples.map((event) => event.type));
  it('has a sample of every event type', () => expect(types.size).to.equal(17));
  for (const event of samples) {
    it(`${event.type} matches schemas/events/${event.type}.v1.json`, () => {
      const validate = schemaValidator(`events/${event.type}.v1.json`);
      expect(validate(event.data), describeErrors(validate)).to.equal(true);
    });
  }
});
