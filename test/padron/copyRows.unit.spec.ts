import { expect } from 'chai';
import { dateField, numericField } from '#services/padron/import/binaryFields.ts';
import { encode, record } from './support/copyRecords.ts';

describe('binary COPY encoding', () => {
  it('encodes dates as days since 2000-01-01 and refuses non-dates', () => {
    expect(dateField('2000-01-01')).to.equal(0);
    expect(dateField('2026-11-22')).to.equal(9822);
    expect(dateField('1999-12-31')).to.equal(-1);
    expect(() => dateField('2026-02-30')).to.throw(/not a date/);
    expect(() => dateField('1052026')).to.throw(/not a date/);
  });

  it('encodes rates as numerics keeping their scale, and refuses non-decimals', () => {
    const hex = (decimal: string) => numericField(decimal).toString('hex');
    expect(hex('0')).to.equal('0000000000000000');
    expect(hex('6.00')).to.equal('0001000000000002' + '0006');
    expect(hex('2.75')).to.equal('0002000000000002' + '0002' + '1d4c');
    expect(hex('0.5')).to.equal('0001ffff00000001' + '1388');
    expect(hex('100')).to.equal('0001000000000000' + '0064');
    expect(hex('12345.6')).to.equal('0003000100000001' + '0001' + '0929' + '1770');
    expect(() => numericField('2,5')).to.throw(/not a decimal rate/);
    expect(() => numericField('-1')).to.throw(/not a decimal rate/);
  });

  it('frames rows with the signature, a field count per row and the trailer', async () => {
    const { bytes, writer } = await encode([record({}), record({ cuit: 30712281436, regime: 'R', dateFrom: null, dateTo: null, kind: null, group: null })]);
    expect(bytes.subarray(0, 11).toString('latin1')).to.equal('PGCOPY\n\xff\r\n\0');
    expect(bytes.readInt32BE(11)).to.equal(0);
    expect(bytes.readInt16BE(19)).to.equal(8);
    expect(bytes.readInt32BE(21)).to.equal(8);
    expect(Number(bytes.readBigInt64BE(25))).to.equal(20000000001);
    expect(bytes.readInt16BE(bytes.length - 2)).to.equal(-1);
    expect(writer.rows).to.equal(2);
  });

  it('keeps the regimes and the validity period', async () => {
    const { writer } = await encode([
      record({ dateFrom: '2026-11-05', dateTo: '2026-11-20' }),
      record({ regime: 'R', dateFrom: '2026-11-01', dateTo: '2026-11-10' }),
      record({ dateFrom: null, dateTo: '2026-12-31' }),
    ]);
    expect({ rows: writer.rows, regimes: writer.regimes, from: writer.validFrom, to: writer.validTo }).to.deep.equal({ rows: 3, regimes: ['P', 'R'], from: '2026-11-01', to: '2026-12-31' });
  });
});
