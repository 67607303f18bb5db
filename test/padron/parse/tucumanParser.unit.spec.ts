import { expect } from 'chai';
import { createTucumanParser } from '#services/padron/parse/tucumanParser.ts';
import { parseText, record, rejectionOf } from '#test/padron/fixtures/parseText.ts';

/** A data line in ACREDITAN.TXT's columns; the name column is 150 wide unless told. */
function line(fields: { cuit?: string; exempt?: boolean; cm?: boolean; from?: string; name?: string; width?: number; percentage: string }): string {
  const { cuit = '30722222225', exempt = false, cm = false, from = '20260601', name = 'ACME SA', width = 150, percentage } = fields;
  return `${cuit.padEnd(13)}${exempt ? 'E  ' : '   '}${cm ? 'CM  ' : '    '}${from}  20260630  ${name.padEnd(width)}${percentage.padStart(5)}`;
}

const HEADER = ['DIRECCION GENERAL DE RENTAS', 'ACREDITAN', 'PERIODO 06/2026', '', 'CUIT          EX CONV DESDE  HASTA  RAZON SOCIAL   PORC.', '-------------', ''];

describe('Tucumán fixed-width parser (T)', () => {
  const parser = createTucumanParser();
  const both = (fields: Parameters<typeof record>[0]) => [record({ ...fields, regime: 'P' }), record({ ...fields, regime: 'R' })];
  const validity = { dateFrom: '2026-06-01', dateTo: '2026-06-30' };

  it('parses FORMATS.md’s shape line, keeping its synthetic CUIT whose check digit does not verify (the import warns)', () => {
    const sample = '30722222229     CM  20260601  20260630  ACME SA        5';
    expect(parser.parseLine(sample, 8)).to.deep.equal(both({ cuit: 30722222229, regime: 'P', aliquot: '5', ...validity, kind: 'CM', name: 'ACME SA' }));
    expect(parser.parseLine(sample.replace('30722222229', '30722222225'), 8)).to.deep.equal(both({ cuit: 30722222225, regime: 'P', aliquot: '5', ...validity, kind: 'CM', name: 'ACME SA' }));
  });

  it('skips the 7 header lines and publishes one porcentaje as both P and R', () => {
    const { records, rejects } = parseText(parser, [...HEADER, line({ percentage: '2,5', name: 'PEÑA JOSÉ' })].join('\r\n'));
    expect(rejects).to.deep.equal([]);
    expect(records).to.deep.equal(both({ cuit: 30722222225, regime: 'P', aliquot: '2.5', ...validity, name: 'PEÑA JOSÉ' }));
  });

  it('reads the porcentaje from the end whatever the name column’s width', () => {
    for (const width of [149, 150, 151]) {
      const [row] = parser.parseLine(line({ percentage: '3', width }), 8) as ReturnType<typeof record>[];
      expect(row, `width ${width}`).to.include({ aliquot: '3', name: 'ACME SA' });
    }
  });

  it('ignores trailing blanks after the porcentaje', () => {
    const [row] = parser.parseLine(`${line({ percentage: '1,5' })}   `, 8) as ReturnType<typeof record>[];
    expect(row).to.include({ aliquot: '1.5' });
  });

  it('gives an exempt subject 0, even when its porcentaje is -----', () => {
    expect(parser.parseLine(line({ exempt: true, percentage: '-----' }), 8)).to.deep.equal(both({ cuit: 30722222225, regime: 'P', aliquot: '0', ...validity, name: 'ACME SA' }));
    expect((parser.parseLine(line({ exempt: true, percentage: '3' }), 8) as ReturnType<typeof record>[])[0]).to.include({ aliquot: '0' });
  });

  it('rejects -----, without exemption, with its own reason', () => {
    expect(rejectionOf(parser, line({ percentage: '-----' }), 12)).to.deep.equal({ line: 12, reason: 'no porcentaje (-----)' });
  });

  it('reads a CUIT written with hyphens, which fits the 13-wide column exactly', () => {
    expect((parser.parseLine(line({ cuit: '30-72222222-5', percentage: '1' }), 8) as ReturnType<typeof record>[])[0]).to.include({ cuit: 30722222225 });
  });

  it('reads a data line found among the first 7 (a file with a shorter header)', () => {
    expect(parser.parseLine(line({ percentage: '1' }), 3)).to.have.length(2);
  });

  const rejected: Array<[string, string]> = [
    [line({ cuit: '3072222222', percentage: '1' }), 'invalid CUIT (not 11 digits)'],
    [line({ from: '20260231', percentage: '1' }), 'invalid date (desde)'],
    [line({ from: '20260701', percentage: '1' }), 'desde after hasta'],
    [line({ percentage: '1' }).slice(0, 30), 'line too short for the fixed-width layout'],
    [line({ percentage: 'x' }), 'invalid rate (porcentaje)'],
    [line({ percentage: '1' }).replace(/^(.{13}) {3}/, '$1X  '), 'invalid exento flag'],
    ['TOTAL DE REGISTROS: 76900', 'line too short for the fixed-width layout'],
  ];
  for (const [text, reason] of rejected) {
    it(`rejects with "${reason}" after the header`, () => {
      expect(rejectionOf(parser, text, 20)).to.deep.equal({ line: 20, reason });
    });
  }
});
