import { expect } from 'chai';
import { findServingLoad } from '#services/padron/import/servingLoad.ts';
import type { RegimeCode } from '#services/padron/parse/padronRecord.ts';
import type { LiveLoad } from '#services/padron/storage/loads.ts';

const live = (loadId: number, fields: { status?: LiveLoad['status']; askedRegime?: RegimeCode | null; regimes?: RegimeCode[]; validFrom?: string | null }): LiveLoad => ({
  loadId,
  status: fields.status ?? 'published',
  fileName: 'ARDJU008112026.TXT',
  askedRegime: fields.askedRegime ?? null,
  regimes: fields.regimes ?? ['P', 'R'],
  validFrom: fields.validFrom === undefined ? '2026-11-01' : fields.validFrom,
  startedAt: new Date(0),
  publishedAt: new Date(0),
  report: null,
});
const serving = (loads: LiveLoad[], askedRegime: RegimeCode | null, assignedDateFrom?: string | null) => findServingLoad(loads, { askedRegime, assignedDateFrom })?.loadId;

describe('which load of the same file makes a re-import “unchanged” (issue 17, item 4)', () => {
  it('is a published load taken for every regime, whatever regime is asked now', () => {
    const all = [live(1, {})];
    expect(serving(all, null)).to.equal(1);
    expect(serving(all, 'P')).to.equal(1);
    expect(serving(all, 'R')).to.equal(1);
  });

  it('is a one-regime load only for that regime', () => {
    const perception = [live(1, { askedRegime: 'P', regimes: ['P'] })];
    expect(serving(perception, 'P')).to.equal(1);
    expect(serving(perception, 'R')).to.equal(undefined);
    expect(serving(perception, null), 'the file has a regime the load left out').to.equal(undefined);
    expect(serving([...perception, live(2, { askedRegime: 'R', regimes: ['R'] })], 'R')).to.equal(2);
  });

  it('is not a load that is still loading, nor a regime the load never got', () => {
    expect(serving([live(1, { status: 'loading' })], null)).to.equal(undefined);
    expect(serving([live(1, { regimes: ['P'] })], 'R'), 'a Salta table with perception rates only').to.equal(undefined);
  });

  it('must have the date a Salta file’s rows are given; other layouts’ rows carry their own', () => {
    const salta = [live(1, { regimes: ['P'], validFrom: '2026-06-01' })];
    expect(serving(salta, null, '2026-06-01')).to.equal(1);
    expect(serving(salta, null, '2026-07-01')).to.equal(undefined);
    expect(serving([live(1, { regimes: ['P'], validFrom: null })], null, null)).to.equal(1);
    expect(serving(salta, null, undefined)).to.equal(1);
  });

  it('is nothing when no load of the file is live (retention dropped it, or it never loaded)', () => {
    expect(serving([], null)).to.equal(undefined);
  });
});
