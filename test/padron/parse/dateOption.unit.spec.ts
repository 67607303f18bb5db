import { expect } from 'chai';
import { type OpenParserOptions, openParser } from '#services/padron/parse/detect.ts';
import { PadronFormatError } from '#services/padron/parse/padronFormatError.ts';

const SALTA_RISK = ['CUIT\tDENOMINACION\tACTIVIDADES_ECONOMICAS\tNIVEL_RIESGO_FISCAL', '20000163989\tPEÑA\tJU\tRA'];
const SALTA_OLD = ['CUIT\tRAZON SOCIAL\tPORCENTAJE', '20000163989\tPEÑA\t1.5'];
const RATES = { CM: { RA: { P: '3' }, RB: { P: '2' }, SR: { P: '1' } }, JU: { RA: { P: '3' }, RB: { P: '2' }, SR: { P: '1' } } };
const CABA = ['21032019;01042019;30042019;20000962997;C;S;N;3,00;3,00;00;00;FINCATI MARIA DOLORES'];
const TUCUMAN = ['RENTAS', '', `30722222225     CM  20260601  20260630  ${'ACME SA'.padEnd(150)}    5`];
const LUA = ['P;22062026;01072026;31072026;20000780333;N;X;N;00,00'];

function refusal(options: OpenParserOptions): string {
  try {
    openParser(options);
  } catch (error) {
    expect(error).to.be.instanceOf(PadronFormatError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('padrón --date: the first day a file’s rates apply (issue 17, item 2)', () => {
  it('dates Salta’s risk file not named “… al DD-MM-YYYY” from --date', () => {
    const parser = openParser({ state: 'A', fileName: 'Padrón Contribuyentes AAEE con Riesgo Fiscal.txt', firstLines: SALTA_RISK, saltaRates: RATES, date: '2026-07-01' });
    expect(parser.assignedDateFrom).to.equal('2026-07-01');
    expect(parser.parseLine(SALTA_RISK[1] ?? '', 2)).to.deep.include.members([{ cuit: 20000163989, regime: 'P', aliquot: '3', dateFrom: '2026-07-01', dateTo: null, published: null, removed: false, kind: 'JU', group: 'RA', name: 'PEÑA' }]);
  });

  it('dates Salta’s older file from --date, and leaves it undated without', () => {
    const dated = openParser({ state: 'A', fileName: 'salta.txt', firstLines: SALTA_OLD, date: '2026-07-01' });
    expect(dated.assignedDateFrom).to.equal('2026-07-01');
    expect(dated.parseLine(SALTA_OLD[1] ?? '', 2)).to.have.nested.property('[0].dateFrom', '2026-07-01');
    expect(openParser({ state: 'A', fileName: 'salta.txt', firstLines: SALTA_OLD }).assignedDateFrom).to.equal(null);
  });

  it('accepts --date repeating the date in a Salta file’s name, and refuses one that disagrees', () => {
    const fileName = 'Padron Riesgo Fiscal al 01-06-2026.txt';
    expect(openParser({ state: 'A', fileName, firstLines: SALTA_RISK, saltaRates: RATES, date: '2026-06-01' }).assignedDateFrom).to.equal('2026-06-01');
    expect(refusal({ state: 'A', fileName, firstLines: SALTA_RISK, saltaRates: RATES, date: '2026-07-01' })).to.equal(
      "'Padron Riesgo Fiscal al 01-06-2026.txt' is dated 2026-06-01 by its name, but --date 2026-07-01 was given; leave --date out, or rename the file if its name is wrong",
    );
    expect(refusal({ state: 'A', fileName: 'Percepcion al 01-06-2026.txt', firstLines: SALTA_OLD, date: '2026-05-01' })).to.match(/is dated 2026-06-01 by its name, but --date 2026-05-01 was given/);
  });

  it('accepts --date repeating the period a file’s rows carry, and refuses one that disagrees', () => {
    const caba = openParser({ state: 'C', fileName: 'ARDJU008042019.TXT', firstLines: CABA, date: '2019-04-01' });
    expect(caba.layout).to.equal('agip');
    expect(caba.assignedDateFrom, 'its rows carry their own dates').to.equal(undefined);
    expect(refusal({ state: 'C', fileName: 'ARDJU008042019.TXT', firstLines: CABA, date: '2019-05-01' })).to.equal(
      "'ARDJU008042019.TXT' carries its own period (its rows apply from 2019-04-01), and --date 2019-05-01 disagrees with it; leave --date out",
    );
    expect(refusal({ state: 'T', fileName: 'ACREDITAN.TXT', firstLines: TUCUMAN, date: '2026-07-01' })).to.match(/its rows apply from 2026-06-01\), and --date 2026-07-01 disagrees/);
    expect(refusal({ state: 'X', fileName: 'Régimen de percepción.txt', firstLines: LUA, date: '2026-06-22' })).to.match(/its rows apply from 2026-07-01\), and --date 2026-06-22 disagrees/);
    expect(openParser({ state: 'X', fileName: 'Régimen de percepción.txt', firstLines: LUA, date: '2026-07-01' }).regimes).to.deep.equal(['P']);
  });

  it('refuses a --date that is not a calendar date written YYYY-MM-DD, for every layout', () => {
    for (const date of ['2026-02-30', '01-06-2026', '2026-6-1', '']) {
      expect(refusal({ state: 'A', fileName: 'salta.txt', firstLines: SALTA_OLD, date }), date).to.equal(`--date must be a date written YYYY-MM-DD, the first day the file's rates apply (got ${JSON.stringify(date)})`);
      expect(refusal({ state: 'C', fileName: 'ARDJU.TXT', firstLines: CABA, date }), date).to.match(/^--date must be a date written YYYY-MM-DD/);
    }
  });
});
