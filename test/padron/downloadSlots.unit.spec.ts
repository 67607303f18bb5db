import { expect } from 'chai';
import { DownloadSlots, type SlotDecision } from '#services/padron/http/downloadSlots.ts';

const granted = (decision: SlotDecision) => {
  if (!decision.granted) throw new Error(`refused: ${decision.reason}`);
  return decision.release;
};

describe('padrón download slots', () => {
  it('caps downloads per address, whatever room is left overall', () => {
    const slots = new DownloadSlots(10, 2);
    granted(slots.take('a'));
    granted(slots.take('a'));
    expect(slots.take('a')).to.deep.equal({ granted: false, reason: 'this address already has 2 downloads in progress, the most one address may have' });
    granted(slots.take('b'));
    expect(slots.inProgress).to.equal(3);
  });

  it('caps downloads overall, whatever each address has', () => {
    const slots = new DownloadSlots(3, 2);
    for (const client of ['a', 'b', 'c']) granted(slots.take(client));
    expect(slots.take('d')).to.deep.equal({ granted: false, reason: '3 downloads are in progress, the most the service serves at once' });
  });

  it('gives a slot back once on release, however often the response reports its end', () => {
    const slots = new DownloadSlots(2, 1);
    const release = granted(slots.take('a'));
    granted(slots.take('b'));
    release();
    release();
    expect(slots.inProgress).to.equal(1);
    granted(slots.take('a'));
    expect(slots.take('c').granted, 'the second release did not free b’s slot').to.equal(false);
  });
});
