import { expect } from 'chai';
import { resolveSlots } from '#services/padron/lookup/catalog.ts';
import type { RegimeCode, StateCode } from '#services/padron/parse/padronRecord.ts';
import type { PublishedLoad } from '#services/padron/storage/loads.ts';

const load = (loadId: number, state: StateCode, regimes: RegimeCode[], validFrom: string | null, validTo: string | null): PublishedLoad => ({
  loadId,
  state,
  regimes,
  validFrom,
  validTo,
  publishedAt: new Date('2026-11-01T12:00:00Z'),
  rows: 1,
  rowsWarned: 0,
});
const pick = (loads: PublishedLoad[], date: string) => resolveSlots(loads, date).map((slot) => `${slot.state}${slot.regime}${slot.load.loadId}`);

describe('which load answers on a day', () => {
  const october = load(1, 'C', ['P', 'R'], '2026-10-01', '2026-10-31');
  const november = load(2, 'C', ['P', 'R'], '2026-11-01', '2026-11-30');

  it('takes the load whose validity contains the day', () => {
    expect(pick([october, november], '2026-10-15')).to.deep.equal(['CP1', 'CR1']);
    expect(pick([october, november], '2026-11-30')).to.deep.equal(['CP2', 'CR2']);
  });

  it('keeps the newest load serving after it expired, until the next one arrives', () => {
    expect(pick([october, november], '2026-12-03')).to.deep.equal(['CP2', 'CR2']);
  });

  it('never answers with a load that has not started', () => {
    expect(pick([october, november], '2026-09-30')).to.deep.equal([]);
    const december = load(3, 'C', ['P', 'R'], '2026-12-01', '2026-12-31');
    expect(pick([november, december], '2026-11-29')).to.deep.equal(['CP2', 'CR2']);
  });

  it('prefers a later load of the same period (a corrected file)', () => {
    const corrected = load(5, 'C', ['P', 'R'], '2026-11-01', '2026-11-30');
    expect(pick([november, corrected], '2026-11-10')).to.deep.equal(['CP5', 'CR5']);
  });

  it('resolves each regime on its own and sorts by state then regime', () => {
    const loads = [
      load(1, 'X', ['R'], '2026-11-01', '2026-11-30'),
      load(2, 'B', ['P'], '2026-11-01', '2026-11-30'),
      load(3, 'B', ['R'], '2026-11-01', '2026-11-30'),
      load(4, 'A', ['P'], '2026-11-01', null),
      load(5, 'A', ['P', 'R'], '2026-10-01', null),
    ];
    expect(pick(loads, '2026-11-15')).to.deep.equal(['AP4', 'AR5', 'BP2', 'BR3', 'XR1']);
  });
});
