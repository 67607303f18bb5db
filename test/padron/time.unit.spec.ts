import { expect } from 'chai';
import { argentineDate, argentineDateTime, isIsoDate, monthsBefore } from '#services/padron/time.ts';

describe('Argentine time', () => {
  it('is UTC−3 all year', () => {
    expect(argentineDate(Date.parse('2026-11-22T02:59:59Z'))).to.equal('2026-11-21');
    expect(argentineDate(Date.parse('2026-11-22T03:00:00Z'))).to.equal('2026-11-22');
    expect(argentineDateTime(new Date('2026-07-01T12:34:56.789Z'))).to.equal('2026-07-01T09:34:56');
  });

  it('checks calendar dates', () => {
    expect(isIsoDate('2028-02-29')).to.equal(true);
    expect(isIsoDate('2026-02-29')).to.equal(false);
    expect(isIsoDate('2026-1-01')).to.equal(false);
  });

  it('counts retention months back, clamping to the month end', () => {
    expect(monthsBefore('2026-11-22', 13)).to.equal('2025-10-22');
    expect(monthsBefore('2027-03-31', 13)).to.equal('2026-02-28');
  });
});
