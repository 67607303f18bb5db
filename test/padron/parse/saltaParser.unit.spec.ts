import { expect } from 'chai';
import { createSaltaPercentageParser, createSaltaRiskParser } from '#services/padron/parse/saltaParser.ts';
import { validateSaltaRates } from '#services/padron/parse/saltaRates.ts';
import { PadronFormatError } from '#services/padron/parse/padronFormatError.ts';
import { parseText, record, rejectionOf } from '#test/padron/fixtures/parseText.ts';

const RATES = {
  CM: { RA: { P: '3.6', R: '2.6' }, RB: { P: 1.8, R: '1.3' }, SR: { P: '0.9' } },
  JU: { RA: { P: '3.60', R: '2.6' }, RB: { P: '2.4', R: '1.5' }, SR: { P: '1.2', R: '0.8' } },
};

describe('Salta parsers (A)', () => {
  describe('current risk file', () => {
    const parser = createSaltaRiskParser({ rates: validateSaltaRates(RATES), dateFrom: '2026-06-01' });
    const text = 'CUIT\tDENOMINACION\tACTIVIDADES_ECONOMICAS\tNIVEL_RIESGO_FISCAL\r\n20000163989\tPEÑA JOSÉ\tJU\tRA\r\n30712281436\tCABAÑA SRL\tCM\tSR\r\n';

    it('takes each rate from the table by activity and risk level, dated from the file name', () => {
      const { records, rejects } = parseText(parser, text);
      expect(rejects).to.deep.equal([]);
      expect(records).to.deep.equal([
        record({ cuit: 20000163989, regime: 'P', aliquot: '3.60', dateFrom: '2026-06-01', kind: 'JU', group: 'RA', name: 'PEÑA JOSÉ' }),
        record({ cuit: 20000163989, regime: 'R', aliquot: '2.6', dateFrom: '2026-06-01', kind: 'JU', group: 'RA', name: 'PEÑA JOSÉ' }),
        // CM × SR has no withholding rate in this table: only perception is published.
        record({ cuit: 30712281436, regime: 'P', aliquot: '0.9', dateFrom: '2026-06-01', kind: 'CM', group: 'SR', name: 'CABAÑA SRL' }),
      ]);
    });

    it('accepts a CUIT written with hyphens', () => {
      expect(parser.parseLine('20-00016398-9\tX\tJU\tRB', 2)).to.have.length(2);
    });

    it('keeps a CUIT whose check digit does not verify, as the agency published it (the import warns)', () => {
      expect(parser.parseLine('20000163988\tPEÑA\tJU\tRA\t', 4)).to.deep.equal([
        record({ cuit: 20000163988, regime: 'P', aliquot: '3.60', dateFrom: '2026-06-01', kind: 'JU', group: 'RA', name: 'PEÑA' }),
        record({ cuit: 20000163988, regime: 'R', aliquot: '2.6', dateFrom: '2026-06-01', kind: 'JU', group: 'RA', name: 'PEÑA' }),
      ]);
    });

    const rejected: Array<[string, string]> = [
      ['20000163989\tPEÑA\tXX\tRA', 'invalid activity (not CM or JU)'],
      ['20000163989\tPEÑA\tJU\tRM', 'invalid risk level (not RA, RB or SR)'],
      ['20000163989\tPEÑA\tJU', 'wrong field count (got 3, expected 4)'],
      ['2000016398\tPEÑA\tJU\tRA', 'invalid CUIT (not 11 digits)'],
    ];
    for (const [line, reason] of rejected) {
      it(`rejects with "${reason}"`, () => expect(rejectionOf(parser, line, 5)).to.deep.equal({ line: 5, reason }));
    }
  });

  describe('older percentage file', () => {
    const parser = createSaltaPercentageParser({ dateFrom: null });

    it('reads CUIT, name and a dot-decimal percentage as perception only', () => {
      const { records, rejects } = parseText(parser, 'CUIT\tRAZON SOCIAL\tPORCENTAJE\n20000163989\tPEÑA JOSÉ\t1.5\n20000962997\tFINCATI\t2\n');
      expect(rejects).to.deep.equal([]);
      expect(records).to.deep.equal([
        record({ cuit: 20000163989, regime: 'P', aliquot: '1.5', name: 'PEÑA JOSÉ' }),
        record({ cuit: 20000962997, regime: 'P', aliquot: '2', name: 'FINCATI' }),
      ]);
    });

    it('rejects a bad percentage', () => {
      expect(rejectionOf(parser, '20000163989\tPEÑA\t1.5.0', 3)).to.deep.equal({ line: 3, reason: 'invalid rate (porcentaje)' });
    });
  });

  describe('rate table validation', () => {
    it('normalizes numbers to exact decimal strings', () => {
      expect(validateSaltaRates(RATES).CM.RB).to.deep.equal({ P: '1.8', R: '1.3' });
    });

    const wrong: Array<[string, unknown, RegExp]> = [
      ['not an object', 'CM', /^Salta rate table: the table must be an object$/],
      ['a missing activity', { CM: RATES.CM }, /the table is missing JU \(the table needs CM and JU, each with RA, RB and SR\)$/],
      ['a missing risk level', { ...RATES, JU: { RA: { P: '1' }, RB: { P: '1' } } }, /JU is missing SR/],
      ['an unknown key', { ...RATES, CM: { ...RATES.CM, XX: { P: '1' } } }, /CM has an unknown key XX/],
      ['a comma decimal', { ...RATES, CM: { ...RATES.CM, RA: { P: '1,5' } } }, /CM\.RA\.P must be a percentage such as "1\.5" \(got "1,5"\)/],
      ['a rate over 100', { ...RATES, CM: { ...RATES.CM, RA: { P: 150 } } }, /CM\.RA\.P must be a percentage such as "1\.5" \(got 150\)/],
      ['a cell without rates', { ...RATES, CM: { ...RATES.CM, RA: {} } }, /CM\.RA needs a rate for P, R or both/],
    ];
    for (const [what, table, message] of wrong) {
      it(`refuses ${what} with a message naming the key`, () => {
        expect(() => validateSaltaRates(table)).to.throw(PadronFormatError, message);
      });
    }

    it('lists every problem at once', () => {
      expect(() => validateSaltaRates({ CM: { RA: { P: 'x' } } })).to.throw(PadronFormatError, /; /);
    });
  });
});
