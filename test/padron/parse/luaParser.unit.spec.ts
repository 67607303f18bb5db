import { expect } from 'chai';
import { createLuaParser } from '#services/padron/parse/luaParser.ts';
import { parseText, record, rejectionOf } from '#test/padron/fixtures/parseText.ts';

describe('Córdoba LUA parser (X)', () => {
  const validity = { published: '2026-06-22', dateFrom: '2026-07-01', dateTo: '2026-07-31' };

  it('parses FORMATS.md’s perception and withholding sample lines with zero-padded rates', () => {
    const perception = parseText(createLuaParser({ regime: 'P' }), 'P;22062026;01072026;31072026;20000780333;N;X;N;00,00');
    const withholding = parseText(createLuaParser({ regime: 'R' }), 'R;22062026;01072026;31072026;20000780333;L;X;N;02,50\r\n');
    expect(perception).to.deep.equal({ records: [record({ cuit: 20000780333, regime: 'P', aliquot: '0.00', ...validity, kind: 'N' })], rejects: [] });
    expect(withholding).to.deep.equal({ records: [record({ cuit: 20000780333, regime: 'R', aliquot: '2.50', ...validity, kind: 'L' })], rejects: [] });
  });

  it('keeps a CUIT whose check digit does not verify: the import counts it as a warning', () => {
    expect(createLuaParser({ regime: 'P' }).parseLine('P;22062026;01072026;31072026;20000780334;N;X;N;00,00', 2)).to.deep.equal([record({ cuit: 20000780334, regime: 'P', aliquot: '0.00', ...validity, kind: 'N' })]);
  });

  const rejected: Array<[string, string]> = [
    ['R;22062026;01072026;31072026;20000780333;N;X;N;00,00', 'regime R in a P file'],
    ['P;22062026;01072026;31072026;20000780333;N;Y;N;00,00', 'field 7 is not X'],
    ['P;22062026;01072026;31072026;20000780333;N;X;N', 'wrong field count (got 8, expected 9)'],
    ['P;22062026;01072026;31072026;20000780333;N;X;N;02,5,0', 'invalid rate (alicuota)'],
  ];
  for (const [line, reason] of rejected) {
    it(`rejects with "${reason}" and the line number`, () => {
      expect(rejectionOf(createLuaParser({ regime: 'P' }), line, 9)).to.deep.equal({ line: 9, reason });
    });
  }
});
