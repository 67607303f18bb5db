import { expect } from 'chai';
import { createRgsParser } from '#services/padron/parse/rgsParser.ts';
import { parseText, record, rejectionOf } from '#test/padron/fixtures/parseText.ts';

describe('ARBA RGS parser (B)', () => {
  const perception = createRgsParser({ regime: 'P' });
  const validity = { published: '2019-03-26', dateFrom: '2019-04-01', dateTo: '2019-04-30' };

  it('parses FORMATS.md’s sample lines, reading the rate from field 9 and the group from field 10', () => {
    const { records, rejects } = parseText(perception, 'P;26032019;01042019;30042019;20000000028;D;N;N;6,00;25;\r\nP;26032019;01042019;30042019;20000021742;D;S;N;0,00;01;');
    expect(rejects).to.deep.equal([]);
    expect(records).to.deep.equal([
      record({ cuit: 20000000028, regime: 'P', aliquot: '6.00', ...validity, kind: 'D', group: '25' }),
      record({ cuit: 20000021742, regime: 'P', aliquot: '0.00', ...validity, kind: 'D', group: '01' }),
    ]);
  });

  it('reports a `B` row as removed, keeping its rate', () => {
    const [row] = parseText(perception, 'P;26032019;01042019;30042019;20000000028;C;B;N;3,50;12;').records;
    expect(row).to.include({ removed: true, aliquot: '3.50', kind: 'C' });
  });

  it('reads withholding files with R rows', () => {
    const [row] = parseText(createRgsParser({ regime: 'R' }), 'R;26032019;01042019;30042019;20000000028;D;N;N;1,75;07;').records;
    expect(row).to.include({ regime: 'R', aliquot: '1.75', group: '07' });
  });

  it('tolerates blanks around fields and a missing trailing `;`', () => {
    const [row] = parseText(perception, ' P ; 26032019;01042019;30042019; 20000000028 ;D;N;N; 6,00 ;25').records;
    expect(row).to.include({ cuit: 20000000028, aliquot: '6.00', group: '25' });
  });

  it('skips blank lines without rejecting them', () => {
    expect(perception.parseLine('   ', 3)).to.equal(null);
  });

  it('keeps a CUIT whose check digit does not verify: the import counts it as a warning', () => {
    expect(perception.parseLine('P;26032019;01042019;30042019;20000000029;D;N;N;6,00;25;', 3)).to.deep.equal([record({ cuit: 20000000029, regime: 'P', aliquot: '6.00', ...validity, kind: 'D', group: '25' })]);
  });

  const rejected: Array<[string, string]> = [
    ['R;26032019;01042019;30042019;20000000028;D;N;N;6,00;25;', 'regime R in a P file'],
    ['X;26032019;01042019;30042019;20000000028;D;N;N;6,00;25;', 'invalid regime letter'],
    ['P;26032019;01042019;30042019;2000000002;D;N;N;6,00;25;', 'invalid CUIT (not 11 digits)'],
    ['P;26032019;01042019;30042019;20000000028;D;N;6,00;25;', 'wrong field count (got 9, expected 10)'],
    ['P;26032019;01042019;30042019;20000000028;D;N;N;6,00;25;X;', 'wrong field count (got 11, expected 10)'],
    ['P;26032019;31022019;30042019;20000000028;D;N;N;6,00;25;', 'invalid date (desde)'],
    ['P;26132019;01042019;30042019;20000000028;D;N;N;6,00;25;', 'invalid date (publicacion)'],
    ['P;26032019;01042019;3004201;20000000028;D;N;N;6,00;25;', 'invalid date (hasta)'],
    ['P;26032019;01052019;30042019;20000000028;D;N;N;6,00;25;', 'desde after hasta'],
    ['P;26032019;01042019;30042019;20000000028;D;X;N;6,00;25;', 'invalid marca alta'],
    ['P;26032019;01042019;30042019;20000000028;D;N;Q;6,00;25;', 'invalid marca alicuota'],
    ['P;26032019;01042019;30042019;20000000028;D;N;N;6.00;25;', 'invalid rate (alicuota)'],
  ];
  for (const [line, reason] of rejected) {
    it(`rejects with "${reason}" and the line number`, () => {
      expect(rejectionOf(perception, line, 42)).to.deep.equal({ line: 42, reason });
    });
  }
});
