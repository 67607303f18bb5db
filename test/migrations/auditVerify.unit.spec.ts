import { expect } from 'chai';
import { chainEvents, type AuditLine } from '#services/migrations/audit/auditChain.ts';
import { verifyAuditLog, type AuditVerdict } from '#services/migrations/audit/auditVerify.ts';
import { migrationStateView } from '#services/migrations/audit/migrationStateView.ts';
import { auditEvents, SLUG } from './auditFixture.ts';

const jsonl = (lines: readonly object[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');
const exported = () => chainEvents(auditEvents());
const failure = (verdict: AuditVerdict) => {
  if (verdict.ok) throw new Error('the verifier accepted a bad file');
  return verdict;
};

describe('the audit verifier', () => {
  it('accepts an export and replays it into the final state with the domain alone', () => {
    const lines = exported();
    const verdict = verifyAuditLog(jsonl(lines));
    if (!verdict.ok) throw new Error(`refused: line ${verdict.line}: ${verdict.problem}`);
    expect(verdict).to.include({ events: 14, stream: `migration-${SLUG}`, headHash: lines.at(-1)!.hash });
    const view = migrationStateView(verdict.state);
    if (!view.exists) throw new Error('no migration folded');
    expect(view.status).to.equal('migrated');
    expect(view.runs.map((run) => [run.number, run.kind, run.status])).to.deep.equal([
      [1, 'run', 'failed'],
      [2, 'run-anyway', 'succeeded'],
    ]);
  });

  it('accepts CRLF line ends and a missing final newline', () => {
    const text = exported().map((line) => JSON.stringify(line)).join('\r\n');
    expect(verifyAuditLog(text).ok).to.equal(true);
  });

  it('names the line whose field was changed: hash mismatch', () => {
    const lines = exported();
    const tampered = lines.map((line) => (line.version === 6 ? { ...line, data: { ...(line.data as object), reason: 'nobody asked' } } : line));
    expect(failure(verifyAuditLog(jsonl(tampered)))).to.deep.include({ line: 6 }).and.to.have.property('problem').that.matches(/^hash mismatch/);
    const actor = lines.map((line) => (line.version === 11 ? { ...line, metadata: { ...line.metadata, actor: 'user-intruder' } } : line));
    expect(failure(verifyAuditLog(jsonl(actor))).line).to.equal(11);
  });

  it('names the line after one whose hash was recomputed to hide a change: broken chain', () => {
    const lines = exported();
    const forged = chainEvents(auditEvents().map((event) => (event.version === 3 ? { ...event, recorded_at: '2026-11-21T00:00:00.000Z' } : event)))[2]!;
    const verdict = failure(verifyAuditLog(jsonl(lines.map((line) => (line.version === 3 ? forged : line)))));
    expect(verdict.line).to.equal(4);
    expect(verdict.problem).to.match(/^broken chain: prev_hash is not line 3's hash/);
  });

  it('names the line after a deleted one', () => {
    const lines = exported().filter((line) => line.version !== 5);
    const verdict = failure(verifyAuditLog(jsonl(lines)));
    expect(verdict).to.deep.include({ line: 5 });
    expect(verdict.problem).to.match(/^broken chain/);
  });

  it('names the first of two swapped lines, and catches a reordered history even when re-chained', () => {
    const lines = exported();
    const swapped = [...lines.slice(0, 6), lines[7]!, lines[6]!, ...lines.slice(8)];
    expect(failure(verifyAuditLog(jsonl(swapped)))).to.deep.include({ line: 7 });
    const events = auditEvents();
    const rechained = chainEvents([...events.slice(0, 6), events[7]!, events[6]!, ...events.slice(8)]);
    const verdict = failure(verifyAuditLog(jsonl(rechained)));
    expect(verdict).to.deep.include({ line: 7, problem: 'out of order: version 8 where version 7 belongs' });
  });

  it('names a line that is not JSON, not an audit line, or not a migration event', () => {
    const lines = exported();
    const text = jsonl(lines).split('\n');
    text[2] = text[2]!.slice(0, -1);
    expect(failure(verifyAuditLog(text.join('\n')))).to.deep.include({ line: 3 }).and.to.have.property('problem').that.matches(/^bad JSON/);
    const { hash: _hash, ...withoutHash } = lines[1]!;
    expect(failure(verifyAuditLog(jsonl([lines[0]!, withoutHash])))).to.deep.include({ line: 2, problem: 'not an audit line: hash must be 64 lowercase hex digits' });
    const blank = `${jsonl(lines.slice(0, 2))}\n${jsonl(lines.slice(2))}`;
    expect(failure(verifyAuditLog(blank))).to.deep.include({ line: 3 });
    expect(failure(verifyAuditLog(''))).to.deep.include({ line: 1, problem: 'the file holds no events' });
  });

  it('checks what the domain knows: the stream, the first event, event types and their schemas', () => {
    const rechain = (change: (line: AuditLine) => object) => chainEvents(exported().map((line) => change(line) as AuditLine));
    const strip = ({ prev_hash: _p, hash: _h, ...event }: AuditLine) => event;
    const otherStream = rechain((line) => (line.version === 9 ? { ...strip(line), stream: 'migration-other' } : strip(line)));
    expect(failure(verifyAuditLog(jsonl(otherStream)))).to.deep.include({ line: 9, problem: `stream migration-other differs from line 1's migration-${SLUG}` });
    const unknownType = rechain((line) => (line.version === 2 ? { ...strip(line), type: 'MigrationTeleported' } : strip(line)));
    expect(failure(verifyAuditLog(jsonl(unknownType)))).to.deep.include({ line: 2, problem: 'unknown event type MigrationTeleported' });
    const badData = rechain((line) => (line.version === 14 ? { ...strip(line), data: { slug: SLUG } } : strip(line)));
    expect(failure(verifyAuditLog(jsonl(badData))).problem).to.match(/^data does not match MigrationJobSucceeded\.v1: .*number/);
    const headless = chainEvents(auditEvents().slice(1).map((event, index) => ({ ...event, version: index + 1 })));
    expect(failure(verifyAuditLog(jsonl(headless)))).to.deep.include({ line: 1, problem: "a migration's history starts with MigrationCreated, not MigrationRunRequested" });
    const noActor = rechain((line) => (line.version === 3 ? { ...strip(line), metadata: { at: 'x' } } : strip(line)));
    expect(failure(verifyAuditLog(jsonl(noActor))).problem).to.match(/^metadata does not match EventMetadata\.v1/);
  });
});
