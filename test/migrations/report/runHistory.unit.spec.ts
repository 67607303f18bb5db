import { expect } from 'chai';
import { runHistory } from '#services/migrations/report/runHistory.ts';
import { ANA, LUIS, story } from './reportFixture.ts';

describe('migration report: a run from its recorded events', () => {
  it('times each step of the run: first start, last end, and the attempts added up', () => {
    const history = runHistory(story(), 2)!;
    expect(history.requestedBy).to.equal(ANA);
    expect(history.startedAt?.toISOString()).to.equal('2026-11-23T09:01:18.200Z');
    expect(history.endedAt?.toISOString()).to.equal('2026-11-23T09:13:32.200Z');
    expect(history.steps['upgrade']).to.deep.include({ durationMs: 127_000 });
    expect(history.steps['fetch'], 'reused: it did not run in run 2').to.equal(undefined);
    expect(history.steps['approve']?.durationMs, 'a gate counts the time it waited').to.equal(601_000);
  });

  it('keeps failures with their attempt and log, and who decided what', () => {
    const first = runHistory(story(), 1)!;
    expect(first.failures.map(({ step, attempt, retryable, logTail }) => ({ step, attempt, retryable, lines: logTail.length }))).to.deep.equal([{ step: 'upgrade', attempt: 1, retryable: false, lines: 45 }]);
    expect(first.decisions).to.deep.equal([]);
    const second = runHistory(story(), 2)!;
    expect(second.decisions.map(({ what, actor, step }) => [what, actor, step])).to.deep.equal([
      ['pause', ANA, undefined],
      ['resume', ANA, undefined],
      ['gate', LUIS, 'approve'],
    ]);
    expect(second.actors).to.deep.equal([ANA, LUIS]);
  });

  it('carries the gate decisions of the runs it resumed, for the gates whose steps it reused', () => {
    const request = { type: 'MigrationRunRequested', data: { slug: 'acme-17', number: 3, jobId: 'job-3', kind: 'resume', plan: [], resumedFrom: 2, reused: { approve: { approvedBy: LUIS } }, skipped: [], skipPreflight: false }, metadata: { actor: ANA, at: '2026-11-23T12:00:00Z' } };
    const third = runHistory([...story(), request], 3)!;
    expect(third.decisions.map(({ what, actor, step, fromRun }) => [what, actor, step, fromRun])).to.deep.equal([['gate', LUIS, 'approve', 2]]);
    expect(third.actors).to.deep.equal([ANA, LUIS]);
    const notReused = { ...request, data: { ...request.data, reused: {} } };
    expect(runHistory([...story(), notReused], 3)!.decisions).to.deep.equal([]);
  });

  it('knows no run the stream never had, nor one a stop dropped', () => {
    expect(runHistory(story(), 3)).to.equal(null);
    const stopped = { type: 'MigrationStopped', data: { slug: 'acme-17', runs: [1, 2] }, metadata: { actor: ANA, at: '2026-11-23T11:00:00Z' } };
    expect(runHistory([...story(), stopped], 2)).to.equal(null);
  });
});
