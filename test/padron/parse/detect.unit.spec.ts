import { expect } from 'chai';
import { type OpenParserOptions, openParser } from '#services/padron/parse/detect.ts';
import { PadronFormatError } from '#services/padron/parse/padronFormatError.ts';

const RGS_P = ['P;26032019;01042019;30042019;20000000028;D;N;N;6,00;25;', 'P;26032019;01042019;30042019;20000021742;D;S;N;0,00;01;'];
const RGS_R = RGS_P.map((line) => `R${line.slice(1)}`);
const LUA = ['P;22062026;01072026;31072026;20000780333;N;X;N;00,00', 'R;22062026;01072026;31072026;20000780333;L;X;N;02,50'];
const AGIP = ['22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;ETCHEVERRIGARAY JUAN  CARLOS', '21032019;01042019;30042019;20000962997;C;S;N;3,00;3,00;00;00;FINCATI MARIA DOLORES'];
const TUCUMAN = ['RENTAS TUCUMAN', 'ACREDITAN', '', 'CUIT  EX CONV', '----', '', '', `30722222225     CM  20260601  20260630  ${'ACME SA'.padEnd(150)}    5`];
const SALTA_RISK = ['CUIT\tDENOMINACION\tACTIVIDADES_ECONOMICAS\tNIVEL_RIESGO_FISCAL', '20000163989\tPEÑA\tJU\tRA'];
const SALTA_OLD = ['CUIT\tRAZON SOCIAL\tPORCENTAJE', '20000163989\tPEÑA\t1.5'];
const RATES = { CM: { RA: { P: '3' }, RB: { P: '2' }, SR: { P: '1' } }, JU: { RA: { P: '3' }, RB: { P: '2' }, SR: { P: '1' } } };

function refusal(options: OpenParserOptions): string {
  try {
    openParser(options);
  } catch (error) {
    expect(error).to.be.instanceOf(PadronFormatError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('padrón layout detection (openParser)', () => {
  it('opens ARBA files with the regime from their names', () => {
    expect(openParser({ state: 'B', fileName: 'PadronRGSPer042019.TXT', firstLines: RGS_P })).to.include({ layout: 'rgs', state: 'B' }).and.have.deep.property('regimes', ['P']);
    expect(openParser({ state: 'B', fileName: 'zips/PadronRGSRet042019.TXT', firstLines: RGS_R }).regimes).to.deep.equal(['R']);
  });

  it('refuses Córdoba’s LUA file imported as Buenos Aires', () => {
    expect(refusal({ state: 'B', fileName: 'padron.txt', regime: 'P', firstLines: LUA })).to.equal("'padron.txt' looks like Córdoba's LUA layout (9 fields, `X` in field 7), not Buenos Aires' RGS layout");
  });

  it('refuses an RGS file imported as CABA, and an AGIP file imported as Córdoba', () => {
    expect(refusal({ state: 'C', fileName: 'a.txt', firstLines: RGS_P })).to.equal("'a.txt' looks like Buenos Aires' RGS layout (10 fields, `P` or `R` first), not CABA's AGIP layout");
    expect(refusal({ state: 'X', fileName: 'a.txt', regime: 'P', firstLines: AGIP })).to.match(/looks like the AGIP layout of CABA, Santa Fe and Entre Ríos \(12 fields, dates first\), not Córdoba's LUA layout$/);
  });

  it('refuses content of no known layout, quoting the first line', () => {
    expect(refusal({ state: 'S', fileName: 'x.csv', firstLines: ['', 'hello;world'] })).to.equal(`'x.csv' matches no known padrón layout in any of its first 2 lines, and Santa Fe expects Santa Fe's PARP layout (AGIP design); first line: "hello;world"`);
  });

  it('refuses a file named like another jurisdiction’s', () => {
    expect(refusal({ state: 'C', fileName: 'PARP_202605.csv', firstLines: AGIP })).to.equal("'PARP_202605.csv' is named like Santa Fe's padrón (PARP_AAAAMM.csv), not CABA's; rename it if it really is CABA's");
  });

  it('needs --regime for a one-regime file whose name does not tell', () => {
    expect(refusal({ state: 'B', fileName: 'padron.txt', firstLines: RGS_P })).to.match(/^cannot tell the regime of 'padron\.txt' from its name .*; pass --regime P or R$/);
    expect(openParser({ state: 'B', fileName: 'padron.txt', regime: 'P', firstLines: RGS_P }).regimes).to.deep.equal(['P']);
  });

  it('refuses a regime that contradicts the name or the rows', () => {
    expect(refusal({ state: 'B', fileName: 'PadronRGSPer042019.TXT', regime: 'R', firstLines: RGS_P })).to.equal("'PadronRGSPer042019.TXT' is a P file by its name, but regime R was asked");
    expect(refusal({ state: 'B', fileName: 'padron.txt', regime: 'P', firstLines: RGS_R })).to.equal("'padron.txt' holds R rows but is being imported as regime P");
  });

  it('derives Córdoba’s regime from “Régimen de percepción/retención”', () => {
    expect(openParser({ state: 'X', fileName: 'Régimen de retención.txt', firstLines: [LUA[1] ?? ''] }).regimes).to.deep.equal(['R']);
    expect(openParser({ state: 'X', fileName: 'Régimen de percepción.txt', firstLines: [LUA[0] ?? ''] })).to.include({ layout: 'lua' });
  });

  it('opens CABA, Santa Fe and Entre Ríos with both regimes, Entre Ríos skipping its header', () => {
    expect(openParser({ state: 'C', fileName: 'ARDJU008042019.TXT', firstLines: AGIP })).to.include({ layout: 'agip' }).and.have.deep.property('regimes', ['P', 'R']);
    const entreRios = openParser({ state: 'E', fileName: 'PadronRetPer202604.txt', firstLines: ['FECHA;DESDE;HASTA;CUIT;…', ...AGIP] });
    expect(entreRios.layout).to.equal('agip-with-header');
    expect(entreRios.parseLine('FECHA;DESDE;HASTA;CUIT;TIPO;A;B;C;D;E;F;G', 1)).to.equal(null);
  });

  it('narrows a two-regime file to the regime asked for', () => {
    const perceptionOnly = openParser({ state: 'C', fileName: 'ARDJU008042019.TXT', regime: 'P', firstLines: AGIP });
    expect(perceptionOnly.regimes).to.deep.equal(['P']);
    expect(perceptionOnly.parseLine(AGIP[1] ?? '', 1)).to.deep.equal([{ cuit: 20000962997, regime: 'P', aliquot: '3.00', dateFrom: '2019-04-01', dateTo: '2019-04-30', published: '2019-03-21', removed: false, kind: 'C', group: '00', name: 'FINCATI MARIA DOLORES' }]);
  });

  it('finds Tucumán’s data past its 7 header lines', () => {
    expect(openParser({ state: 'T', fileName: 'ACREDITAN.TXT', firstLines: TUCUMAN })).to.include({ layout: 'tucuman' });
  });

  it('opens Salta’s risk file with a rate table and the date from its name', () => {
    const parser = openParser({ state: 'A', fileName: 'Padron Riesgo Fiscal al 01-06-2026.txt', firstLines: SALTA_RISK, saltaRates: RATES });
    expect(parser.layout).to.equal('salta-risk');
    expect(parser.regimes, 'the table has perception rates only').to.deep.equal(['P']);
    expect(parser.parseLine(SALTA_RISK[1] ?? '', 2)).to.deep.equal([{ cuit: 20000163989, regime: 'P', aliquot: '3', dateFrom: '2026-06-01', dateTo: null, published: null, removed: false, kind: 'JU', group: 'RA', name: 'PEÑA' }]);
  });

  it('refuses Salta’s risk file without a rate table, or without a date', () => {
    expect(refusal({ state: 'A', fileName: 'riesgo al 01-06-2026.txt', firstLines: SALTA_RISK })).to.equal("'riesgo al 01-06-2026.txt' is Salta's risk file, which has no rates: supply Salta's rate table (CM/JU × RA/RB/SR) to import it");
    expect(refusal({ state: 'A', fileName: 'riesgo.txt', firstLines: SALTA_RISK, saltaRates: RATES })).to.equal(
      "cannot read the date of 'riesgo.txt': Salta's risk file carries none but in a name ending '… al DD-MM-YYYY.txt'; pass --date YYYY-MM-DD, the first day its rates apply",
    );
    expect(refusal({ state: 'A', fileName: 'riesgo.txt', firstLines: SALTA_RISK, saltaRates: RATES, date: '2026-02-30' })).to.match(/YYYY-MM-DD, the first day the file's rates apply \(got "2026-02-30"\)/);
    expect(refusal({ state: 'A', fileName: 'riesgo.txt', firstLines: SALTA_RISK, saltaRates: { CM: {} } })).to.match(/^Salta rate table: /);
    expect(openParser({ state: 'A', fileName: 'riesgo.txt', firstLines: SALTA_RISK, saltaRates: RATES, date: '2026-06-01' }).layout).to.equal('salta-risk');
  });

  it('opens Salta’s older file for perception only', () => {
    expect(openParser({ state: 'A', fileName: 'salta.txt', firstLines: SALTA_OLD })).to.include({ layout: 'salta-percentage' }).and.have.deep.property('regimes', ['P']);
    expect(refusal({ state: 'A', fileName: 'salta.txt', regime: 'R', firstLines: SALTA_OLD })).to.match(/perception rates only/);
  });
});
