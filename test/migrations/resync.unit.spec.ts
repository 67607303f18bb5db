import { expect } from 'chai';
import { foldEvents } from '#shared/decider/decider.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { planStep, type PlannedStep } from '#shared/workflow/plan.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import type { LiveMigration, MigrationEvent, MigrationSettings } from '#services/migrations/domain/migration.ts';
import { planDiff, reuseAfterAdopt } from '#services/migrations/domain/resync.ts';
import { migrationSettings } from '#test/support/migrationSettings.ts';

const settings: MigrationSettings = migrationSettings({ slug: 'acme', name: 'Acme', recipe: { key: 'community.16.0-17.0', sha256: 'a'.repeat(64), text: 'old' }, workingDatabase: 'forja_mig_acme' });
/** A planned step whose kind differs from its id. */
const step = (id: string, type: string, extra: Partial<PlannedStep> = {}): PlannedStep => ({ id, type, params: {}, ...extra });
const OLD: PlannedStep[] = [planStep('space', { params: { phase: 'preflight' } }), planStep('fetch'), planStep('restore'), step('cleanup', 'sql', { params: { sql: 'a' } }), step('upgrade', 'erp', {}), step('verify', 'check', {})];
const run = { slug: 'acme', number: 1, jobId: 'r1' };
/** Run 1 finished space, fetch, restore and cleanup, then failed upgrading. */
const failedUpgrade: MigrationEvent[] = [
  { type: 'MigrationCreated', data: settings },
  { type: 'MigrationRunRequested', data: { ...run, kind: 'run', plan: OLD, resumedFrom: null, reused: {}, skipped: [], skipPreflight: false } },
  ...['space', 'fetch', 'restore', 'cleanup'].flatMap((step): MigrationEvent[] => [
    { type: 'MigrationStepStarted', data: { ...run, step, attempt: 1, attemptId: `a-${step}`, executor: 'e1' } },
    { type: 'MigrationStepCompleted', data: { ...run, step, attemptId: `a-${step}`, durationMs: 5, facts: { did: step } } },
  ]),
  { type: 'MigrationStepStarted', data: { ...run, step: 'upgrade', attempt: 1, attemptId: 'a-upgrade', executor: 'e1' } },
  { type: 'MigrationStepFailed', data: { ...run, step: 'upgrade', attemptId: 'a-upgrade', durationMs: 5, error: 'boom', retryable: false, logTail: [] } },
  { type: 'MigrationJobFailed', data: { ...run, step: 'upgrade', error: 'boom' } },
];
const state = (events: MigrationEvent[]) => foldEvents(migrationDecider, events) as LiveMigration;
const lastRun = () => state(failedUpgrade).runs.at(-1);
const snapshot = { key: 'community.16.0-17.0', sha256: 'b'.repeat(64), text: 'new' };

describe('resync: the step diff and what a resume keeps', () => {
  it('lists added, removed and changed steps (with their fields) in plan order', () => {
    const after = [OLD[0]!, OLD[1]!, OLD[2]!, step('upgrade', 'erp', { timeoutS: 36000 }), step('verify', 'check', { params: { sql: 'b' } }), planStep('report')];
    expect(planDiff(OLD, after)).to.deep.equal([
      { id: 'space', kind: 'space', change: 'same', fields: [] },
      { id: 'fetch', kind: 'fetch', change: 'same', fields: [] },
      { id: 'restore', kind: 'restore', change: 'same', fields: [] },
      { id: 'cleanup', kind: 'sql', change: 'removed', fields: [] },
      { id: 'upgrade', kind: 'erp', change: 'changed', fields: ['timeoutS'] },
      { id: 'verify', kind: 'check', change: 'changed', fields: ['params.sql'] },
      { id: 'report', kind: 'report', change: 'added', fields: [] },
    ]);
  });

  it('keeps every finished step when the change comes after the checkpoint', () => {
    const after = [...OLD.slice(0, 5), step('verify', 'check', { params: { sql: 'stricter' } })];
    expect(reuseAfterAdopt(lastRun(), after)).to.deep.equal({ reuse: ['space', 'fetch', 'restore', 'cleanup'], checkpoint: 'cleanup', restoreAgain: false });
  });

  it('moves the checkpoint back to a changed step and restores again when the snapshot holds later changes', () => {
    const after = [OLD[0]!, OLD[1]!, OLD[2]!, step('cleanup', 'sql', { params: { sql: 'changed' } }), OLD[4]!, OLD[5]!];
    expect(reuseAfterAdopt(lastRun(), after)).to.deep.equal({ reuse: ['space', 'fetch'], checkpoint: 'fetch', restoreAgain: true });
  });

  it('keeps nothing when the last run did not fail (the next run starts from scratch anyway)', () => {
    expect(reuseAfterAdopt(undefined, OLD)).to.deep.equal({ reuse: [], checkpoint: null, restoreAgain: false });
  });

  it('resumes the failed run with the adopted plan, reusing only what the adopt kept', () => {
    const after = [OLD[0]!, OLD[1]!, OLD[2]!, step('cleanup', 'sql', { params: { sql: 'changed' } }), OLD[4]!, OLD[5]!];
    const reuse = reuseAfterAdopt(lastRun(), after);
    const [resynced] = migrationDecider.decide({ type: 'ResyncMigration', decision: 'adopt', recipe: snapshot, plan: after, reuse, changes: planDiff(OLD, after).filter((row) => row.change !== 'same') }, state(failedUpgrade));
    expect(resynced?.type).to.equal('MigrationResynced');
    const validate = schemaValidator('events/MigrationResynced.v1.json');
    expect(validate(resynced?.data), describeErrors(validate)).to.equal(true);
    const adopted = state([...failedUpgrade, resynced!]);
    expect(adopted.recipe).to.deep.equal(snapshot);
    const [requested] = migrationDecider.decide({ type: 'RequestRun', jobId: 'r2', plan: after }, adopted);
    expect(requested?.data).to.deep.include({ kind: 'resume', plan: after, resumedFrom: 1, reused: { space: { did: 'space' }, fetch: { did: 'fetch' } } });
  });

  it('records keep without touching the snapshot, and refuses while a run is live', () => {
    const [kept] = migrationDecider.decide({ type: 'ResyncMigration', decision: 'keep', recipe: snapshot, plan: OLD, reuse: { reuse: [], checkpoint: null, restoreAgain: false }, changes: [] }, state(failedUpgrade));
    expect(kept?.data).to.not.have.property('recipe');
    expect(state([...failedUpgrade, kept!]).recipe).to.deep.equal(settings.recipe);
    const live = failedUpgrade.slice(0, 2);
    expect(() => migrationDecider.decide({ type: 'ResyncMigration', decision: 'adopt', recipe: snapshot, plan: OLD, reuse: { reuse: [], checkpoint: null, restoreAgain: false }, changes: [] }, state(live))).to.throw(/run 1 is queued/);
  });
});
