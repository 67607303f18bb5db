import { expect } from 'chai';
import { foldEvents } from '#shared/decider/decider.ts';
import { planStep } from '#shared/workflow/plan.ts';
import { JobSupersededError } from '#shared/workflow/workflowDecide.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import type { InstanceEvent, InstanceSettings, InstanceSource } from '#services/instances/domain/instance.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import type { LiveMigration, MigrationEvent } from '#services/migrations/domain/migration.ts';
import { checkpointDatabaseOf, isWorkingInstanceOf, workingInstanceCandidates } from '#services/migrations/domain/workingNames.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';
import { migrationSettings } from '#test/support/migrationSettings.ts';

const created: MigrationEvent = { type: 'MigrationCreated', data: migrationSettings({ slug: 'acme', workingDatabase: 'forjamig_acme', checkpointDatabase: 'forjack_acme' }) };
const PLAN = [planStep('restore'), planStep('instance')];
const requested = (number: number): MigrationEvent => ({
  type: 'MigrationRunRequested',
  data: { slug: 'acme', number, jobId: `j${number}`, kind: 'run', plan: PLAN, resumedFrom: null, reused: {}, skipped: [], skipPreflight: false },
});
const recorded = (number: number): MigrationEvent => ({ type: 'MigrationWorkingInstanceRequested', data: { slug: 'acme', number, jobId: `j${number}`, instance: `migrun-acme-${number}` } });
const stopped = (runs: number[]): MigrationEvent => ({ type: 'MigrationStopped', data: { slug: 'acme', runs } });
const state = (events: MigrationEvent[]) => foldEvents(migrationDecider, events) as LiveMigration;

const instance = (slug: string, project: string, source: InstanceSource) => {
  const settings: InstanceSettings = { slug, name: slug, project, stage: 'production', erpVersion: '17.0', edition: 'community', modules: [], gitRepo: null, branch: 'main', source };
  return foldEvents(instanceDecider, [{ type: 'InstanceRequested', data: { ...settings, jobId: 'i1' } } as InstanceEvent]);
};

describe('a migration’s working names', () => {
  const spec = deciderSpec(migrationDecider);

  it('records the working instance of the current run once, in a form no user’s instance can have', () => {
    spec.given([created, requested(1)]).when({ type: 'RecordWorkingInstance', jobId: 'j1' }).then([recorded(1)]);
    spec.given([created, requested(1), recorded(1)]).when({ type: 'RecordWorkingInstance', jobId: 'j1' }).thenNothingHappens();
  });

  it('refuses to record one for a run that is not the current one, or has ended', () => {
    spec.given([created, requested(1), stopped([1]), requested(2)]).when({ type: 'RecordWorkingInstance', jobId: 'j1' }).thenThrows(JobSupersededError);
    const cancelled: MigrationEvent = { type: 'MigrationJobCancelled', data: { slug: 'acme', number: 1, jobId: 'j1', reason: 'stop' } };
    spec.given([created, requested(1), cancelled]).when({ type: 'RecordWorkingInstance', jobId: 'j1' }).thenThrows(JobSupersededError);
  });

  it('keeps the recorded instances across a stop: the stop’s cleanup destroys them', () => {
    expect(state([created, requested(1), recorded(1), stopped([1])]).workingInstances).to.deep.equal([{ run: 1, instance: 'migrun-acme-1' }]);
  });

  it('offers a stop the recorded instances, and each run’s pre-record slug for the executor to check', () => {
    const migration = state([created, requested(1), stopped([1]), requested(2), recorded(2), stopped([2])]);
    expect(workingInstanceCandidates(migration)).to.deep.equal([
      { instance: 'migrun-acme-2', run: 2 },
      { instance: 'acme-r1', run: 1 },
      { instance: 'acme-r2', run: 2 },
    ]);
  });

  it('counts as the migration’s only an instance whose own events say that run asked for it', () => {
    const ours: InstanceSource = { kind: 'migration', migration: 'acme', run: 1, database: 'forjamig_acme', filestoreDir: null };
    expect(isWorkingInstanceOf(instance('acme-r1', 'migrations', ours), 'acme', 1)).to.equal(true);
    // Instance acme-r1 of project acme is a user's: issue 24's stop destroyed it.
    expect(isWorkingInstanceOf(instance('acme-r1', 'acme', { kind: 'empty' }), 'acme', 1)).to.equal(false);
    expect(isWorkingInstanceOf(instance('acme-r1', 'migrations', ours), 'acme', 2), 'another run’s').to.equal(false);
    expect(isWorkingInstanceOf(instance('acme-r1', 'migrations', { ...ours, migration: 'acme-2' }), 'acme'), 'another migration’s').to.equal(false);
    expect(isWorkingInstanceOf(instance('acme-r1', 'acme', { kind: 'artifact', artifactId: 1, migration: 'acme', run: 1, artifactKind: 'dump', blobKey: 'k', filestoreKey: null }), 'acme'), 'made by a user from its artifact').to.equal(false);
    expect(isWorkingInstanceOf({ status: 'none' }, 'acme', 1)).to.equal(false);
  });

  it('reads the checkpoint the migration recorded, or the name older migrations used', () => {
    expect(checkpointDatabaseOf(state([created]))).to.equal('forjack_acme');
    expect(checkpointDatabaseOf(migrationSettings({ workingDatabase: 'forja_mig_acme' }))).to.equal('forja_mig_acme_ck');
  });
});
