import { expect } from 'chai';
import { createDdmmyyyyReader, createYyyymmddReader, readDashedDdmmyyyy } from '#services/padron/parse/dates.ts';
import { createRateReader } from '#services/padron/parse/rates.ts';

describe('padrón field readers', () => {
  describe('dates', () => {
    const ddmmyyyy = createDdmmyyyyReader();

    it('normalizes DDMMAAAA to YYYY-MM-DD', () => {
      expect(ddmmyyyy('26032019')).to.equal('2019-03-26');
      expect(ddmmyyyy('29022024')).to.equal('2024-02-29');
    });

    it('reads Santa Fe’s 7-digit dates as a dropped leading zero of the day', () => {
      expect(ddmmyyyy('1052026')).to.equal('2026-05-01');
      expect(ddmmyyyy('9122026')).to.equal('2026-12-09');
    });

    it('refuses impossible or malformed dates, also on the cached path', () => {
      for (const field of ['31022026', '29022025', '00012026', '01132026', '2603201', '260320199', '2603201X', '', '31062026']) {
        expect(ddmmyyyy(field), field).to.equal(null);
        expect(ddmmyyyy(field), `${field} again`).to.equal(null);
      }
    });

    it('reads Tucumán’s AAAAMMDD and Salta’s DD-MM-YYYY', () => {
      expect(createYyyymmddReader()('20260601')).to.equal('2026-06-01');
      expect(createYyyymmddReader()('20260231')).to.equal(null);
      expect(readDashedDdmmyyyy('01-06-2026')).to.equal('2026-06-01');
      expect(readDashedDdmmyyyy('1-6-2026')).to.equal('2026-06-01');
      expect(readDashedDdmmyyyy('31-06-2026')).to.equal(null);
    });
  });

  describe('rates', () => {
    const comma = createRateReader(',');

    const exact: Array<[string, string]> = [
      ['6,00', '6.00'],
      ['02,75', '2.75'],
      ['2,5', '2.5'],
      ['0,1', '0.1'],
      ['2', '2'],
      ['00,00', '0.00'],
      ['0,00', '0.00'],
      ['100', '100'],
      ['100,00', '100.00'],
      [',5', '0.5'],
    ];
    for (const [field, rate] of exact) {
      it(`reads ${field} as the exact decimal ${rate}`, () => expect(comma(field)).to.equal(rate));
    }

    it('refuses what is not a percentage', () => {
      for (const field of ['', ',', '2.5', '1,2,3', '-1', 'abc', '100,01', '101', '1 5']) expect(comma(field), field).to.equal(null);
    });

    it('reads dot decimals with a dot reader', () => {
      expect(createRateReader('.')('1.5')).to.equal('1.5');
      expect(createRateReader('.')('1,5')).to.equal(null);
    });
  });
});
