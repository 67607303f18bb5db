import { expect } from 'chai';
import { createAgipParser } from '#services/padron/parse/agipParser.ts';
import { parseText, record, rejectionOf } from '#test/padron/fixtures/parseText.ts';

describe('AGIP-design parser (C, S, E)', () => {
  const caba = createAgipParser({ headerLine: false });

  it('parses CABA’s sample lines into a perception and a withholding record each', () => {
    const { records, rejects } = parseText(caba, '22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;ETCHEVERRIGARAY JUAN  CARLOS\r\n21032019;01042019;30042019;20000962997;C;S;N;3,00;3,00;00;00;FINCATI MARIA DOLORES');
    expect(rejects).to.deep.equal([]);
    const first = { cuit: 20000163989, published: '2018-11-22', dateFrom: '2018-12-01', dateTo: '2018-12-31', kind: 'D', group: '00', name: 'ETCHEVERRIGARAY JUAN  CARLOS' };
    const second = { cuit: 20000962997, published: '2019-03-21', dateFrom: '2019-04-01', dateTo: '2019-04-30', kind: 'C', group: '00', name: 'FINCATI MARIA DOLORES' };
    expect(records).to.deep.equal([
      record({ ...first, regime: 'P', aliquot: '0.00' }),
      record({ ...first, regime: 'R', aliquot: '0.00' }),
      record({ ...second, regime: 'P', aliquot: '3.00' }),
      record({ ...second, regime: 'R', aliquot: '3.00' }),
    ]);
  });

  it('parses Santa Fe’s sample lines: 7-digit dates, `-` marca alta, unpadded rates and groups, Ñ', () => {
    const { records, rejects } = parseText(caba, '21042026;1052026;31052026;20060166847;D;-;N;2,5;1,5;0;0;ENRIQUE COSTANTE BERTUCCELLI\n21042026;1052026;31052026;30712281436;C;-;N;1,25;0,1;0;0;CABAÑA LA BLANQUITA S.R.L.\n');
    expect(rejects).to.deep.equal([]);
    const validity = { published: '2026-04-21', dateFrom: '2026-05-01', dateTo: '2026-05-31', group: '0' };
    expect(records).to.deep.equal([
      record({ cuit: 20060166847, regime: 'P', aliquot: '2.5', ...validity, kind: 'D', name: 'ENRIQUE COSTANTE BERTUCCELLI' }),
      record({ cuit: 20060166847, regime: 'R', aliquot: '1.5', ...validity, kind: 'D', name: 'ENRIQUE COSTANTE BERTUCCELLI' }),
      record({ cuit: 30712281436, regime: 'P', aliquot: '1.25', ...validity, kind: 'C', name: 'CABAÑA LA BLANQUITA S.R.L.' }),
      record({ cuit: 30712281436, regime: 'R', aliquot: '0.1', ...validity, kind: 'C', name: 'CABAÑA LA BLANQUITA S.R.L.' }),
    ]);
  });

  it('keeps each regime’s own group', () => {
    const [perception, withholding] = parseText(caba, '22112018;01122018;31122018;20000163989;D;S;N;1,00;2,00;03;07;X').records;
    expect(perception).to.include({ regime: 'P', group: '03' });
    expect(withholding).to.include({ regime: 'R', group: '07' });
  });

  it('reports `B` rows as removed in both records', () => {
    const records = parseText(caba, '22112018;01122018;31122018;20000163989;D;B;N;1,00;2,00;03;07;X').records;
    expect(records.map((row) => row.removed)).to.deep.equal([true, true]);
  });

  it('skips Entre Ríos’ header line, and only at line 1', () => {
    const entreRios = createAgipParser({ headerLine: true });
    const header = 'FECHA;DESDE;HASTA;CUIT;TIPO;ALTA;ALIC;PERC;RET;GP;GR;RAZON SOCIAL';
    expect(entreRios.parseLine(header, 1)).to.equal(null);
    expect(rejectionOf(entreRios, header, 2)).to.deep.equal({ line: 2, reason: 'invalid date (publicacion)' });
    expect(rejectionOf(caba, header, 1)).to.deep.equal({ line: 1, reason: 'invalid date (publicacion)' });
  });

  it('parses line 1 of an Entre Ríos file that came without its header', () => {
    const result = createAgipParser({ headerLine: true }).parseLine('22112018;01122018;31122018;20000163989;D;S;N;1,00;2,00;03;07;X', 1);
    expect(result).to.have.length(2);
  });

  it('keeps a CUIT whose check digit does not verify (the import counts it as a warning), and an empty razón social', () => {
    const kept = caba.parseLine('22112018;01122018;31122018;20000163980;D;S;N;0,00;0,00;00;00;', 4);
    const fields = { cuit: 20000163980, published: '2018-11-22', dateFrom: '2018-12-01', dateTo: '2018-12-31', kind: 'D', group: '00' };
    expect(kept).to.deep.equal([record({ ...fields, regime: 'P', aliquot: '0.00' }), record({ ...fields, regime: 'R', aliquot: '0.00' })]);
  });

  const rejected: Array<[string, string]> = [
    ['22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00', 'wrong field count (got 11, expected 12)'],
    ['22112018;01122018;31122018;20000163989;D;S;N;0,00', 'wrong field count (got 8, expected 12)'],
    ['22112018;01122018;31122018;20000163989;D;S;N;x;0,00;00;00;X', 'invalid rate (percepcion)'],
    ['22112018;01122018;31122018;20000163989;D;S;N;0,00;;00;00;X', 'invalid rate (retencion)'],
    ['22112018;01122018;31122018;20000163989;D;Z;N;0,00;0,00;00;00;X', 'invalid marca alta'],
    ['22112018;32122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;X', 'invalid date (desde)'],
  ];
  for (const [line, reason] of rejected) {
    it(`rejects with "${reason}" and the line number`, () => {
      expect(rejectionOf(caba, line, 7)).to.deep.equal({ line: 7, reason });
    });
  }
});
