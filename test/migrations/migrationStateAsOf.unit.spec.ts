import { expect } from 'chai';
import { highlightOf, runOf, summarizeMigrationEvent } from '#services/migrations/audit/migrationEventSummary.ts';
import { describeMigrationState, migrationStateAsOf, migrationStateView } from '#services/migrations/audit/migrationStateView.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import { foldEvents } from '#shared/decider/decider.ts';
import { HISTORY } from './auditFixture.ts';

const viewAt = (version: number) => {
  const view = migrationStateView(migrationStateAsOf(HISTORY, version));
  if (!view.exists) throw new Error(`no migration at version ${version}`);
  return view;
};

describe('a migration as of one of its events', () => {
  it('is nothing before its first event, and the decider’s fold after the last', () => {
    expect(migrationStateView(migrationStateAsOf(HISTORY, 0))).to.deep.equal({ exists: false });
    expect(migrationStateAsOf(HISTORY, HISTORY.length)).to.deep.equal(foldEvents(migrationDecider, HISTORY));
    expect(migrationStateAsOf(HISTORY, 999)).to.deep.equal(foldEvents(migrationDecider, HISTORY));
  });

  it('shows the settings, status, runs and steps folded up to that event only', () => {
    expect(viewAt(1)).to.deep.include({ slug: 'audit-acme', status: 'draft', runs: [], notify_to: ['ana@example.com'] });
    const failed = viewAt(5);
    expect(failed.status).to.equal('errored');
    expect(failed.runs).to.have.length(1);
    expect(failed.runs[0]!.steps[0]).to.deep.equal({ id: 'space', type: 'space', phase: 'preflight', status: 'failed', attempts: 1, note: 'not enough disk' });
    const waiting = viewAt(10);
    expect(waiting.status).to.equal('waiting');
    expect(waiting.runs[1]).to.deep.include({ number: 2, kind: 'run-anyway', status: 'waiting', resumed_from: 1, skip_preflight: true });
    expect(waiting.runs[1]!.steps.map((step) => [step.id, step.status, step.note])).to.deep.equal([
      ['space', 'skipped', null],
      ['fetch', 'completed', null],
      ['approve', 'waiting', 'Looks right?'],
      ['upgrade', 'pending', null],
    ]);
    expect(describeMigrationState(viewAt(14))).to.deep.equal([
      'migration audit-acme (Audit Acme): 16.0 -> 17.0, community, openupgrade, test',
      'status: migrated',
      `recipe: community.16.0-17.0 sha256 ${'a'.repeat(64)}`,
      'run 1 (run): failed, 0/4 steps done - space: not enough disk',
      'run 2 (run-anyway, from run 1): succeeded, 4/4 steps done',
    ]);
  });
});

describe('a migration event in its history', () => {
  it('says what happened in one line, with its run', () => {
    expect(HISTORY.map(summarizeMigrationEvent)).to.deep.equal([
      'Created: 16.0 → 17.0, community, openupgrade, test; recipe community.16.0-17.0; input pull',
      'Run 1 requested: 4 steps',
      'Run 1: space started (attempt 1) on exec-host:41',
      'Run 1: space failed in 40 ms: not enough disk',
      'Run 1 failed at space: not enough disk',
      'Run 2 requested anyway, past the failed pre-flight of run 1: “disk is added tonight”',
      'Run 2: fetch started (attempt 1) on exec-host:41',
      'Run 2: fetch completed in 1.2 s',
      'Run 2: approve started (attempt 1) on exec-host:41',
      'Run 2: waits at approve: “Looks right?”',
      'Run 2: approve approved by user-dev: “checked the totals”',
      'Run 2: upgrade started (attempt 1) on exec-host:41',
      'Run 2: upgrade completed in 5.0 s',
      'Run 2 succeeded',
    ]);
    expect(HISTORY.map(runOf)).to.deep.equal([null, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
  });

  it('stands out when it is an override, a gate decision, a resync, a stop or a delete', () => {
    expect(HISTORY.map(highlightOf).filter(Boolean)).to.deep.equal(['override', 'gate']);
    const recipe = { key: 'community.16.0-17.0', sha256: 'b'.repeat(64), text: 'format: 1' };
    expect(highlightOf({ type: 'MigrationEdited', data: { slug: 'x', changes: { recipe } } })).to.equal('resync');
    expect(highlightOf({ type: 'MigrationEdited', data: { slug: 'x', changes: { contract: 'M1' } } })).to.equal(null);
    expect(highlightOf({ type: 'MigrationRecipeResynced', data: {} })).to.equal('resync');
    expect(highlightOf({ type: 'MigrationStopped', data: { slug: 'x', runs: [1, 2] } })).to.equal('stop');
    expect(summarizeMigrationEvent({ type: 'MigrationStopped', data: { slug: 'x', runs: [1, 2] } })).to.equal('Stopped: back to draft, runs 1, 2 dropped');
    expect(highlightOf({ type: 'MigrationDeleted', data: { slug: 'x' } })).to.equal('delete');
    const working = { type: 'MigrationWorkingInstanceRequested', data: { slug: 'x', number: 2, jobId: 'j2', instance: 'migrun-x-2' } };
    expect([summarizeMigrationEvent(working), highlightOf(working), runOf(working)]).to.deep.equal(['Run 2: working instance migrun-x-2 requested', null, 2]);
  });

  it('is listed by its type when it is newer than this code', () => {
    expect(summarizeMigrationEvent({ type: 'MigrationRecipeResynced', data: {} })).to.equal('MigrationRecipeResynced');
  });
});
