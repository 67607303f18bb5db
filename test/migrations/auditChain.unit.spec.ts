import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { chainEvents, chainHash, GENESIS_HASH } from '#services/migrations/audit/auditChain.ts';
import { auditEvents } from './auditFixture.ts';

describe('the audit hash chain', () => {
  it('links every line to the one before, the first to 64 zeros', () => {
    const lines = chainEvents(auditEvents());
    expect(lines[0]!.prev_hash).to.equal(GENESIS_HASH).and.to.match(/^0{64}$/);
    for (let i = 1; i < lines.length; i++) expect(lines[i]!.prev_hash).to.equal(lines[i - 1]!.hash);
    expect(new Set(lines.map((line) => line.hash)).size).to.equal(lines.length);
  });

  it('hashes prev_hash followed by the RFC 8785 canonical JSON of the event, whatever its key order', () => {
    const event = { stream: 'migration-x', version: 1, global_position: 7, id: 'e1', type: 'MigrationDeleted', data: { slug: 'x', n: 1.5e-7 }, metadata: { actor: 'system' }, recorded_at: '2026-01-01T00:00:00.000Z' };
    // Keys sorted by UTF-16 code units, no spaces, numbers as ECMAScript prints them: what any JCS implementation gives.
    const canonical = '{"data":{"n":1.5e-7,"slug":"x"},"global_position":7,"id":"e1","metadata":{"actor":"system"},"recorded_at":"2026-01-01T00:00:00.000Z","stream":"migration-x","type":"MigrationDeleted","version":1}';
    const expected = createHash('sha256').update(GENESIS_HASH + canonical).digest('hex');
    expect(chainHash(GENESIS_HASH, event)).to.equal(expected);
    const reordered = { type: event.type, data: { n: 1.5e-7, slug: 'x' }, version: 1, stream: event.stream, recorded_at: event.recorded_at, metadata: event.metadata, id: 'e1', global_position: 7 };
    expect(chainHash(GENESIS_HASH, reordered)).to.equal(expected);
  });

  it('changes every later hash when one event changes', () => {
    const events = auditEvents();
    const original = chainEvents(events);
    events[4] = { ...events[4]!, metadata: { ...events[4]!.metadata, actor: 'someone-else' } };
    const changed = chainEvents(events);
    expect(changed.slice(0, 4).map((line) => line.hash)).to.deep.equal(original.slice(0, 4).map((line) => line.hash));
    for (let i = 4; i < events.length; i++) expect(changed[i]!.hash, `line ${i + 1}`).to.not.equal(original[i]!.hash);
  });
});
