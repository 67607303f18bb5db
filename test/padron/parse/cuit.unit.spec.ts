import { expect } from 'chai';
import { NOT_ELEVEN_DIGITS, checkDigitVerifies, cuitCheckDigit, isValidCuit, readCuit } from '#services/padron/parse/cuit.ts';

describe('CUIT check digit', () => {
  it('computes AFIP’s digit over the first ten (weights 5,4,3,2,7,6,5,4,3,2)', () => {
    expect(cuitCheckDigit('2000016398')).to.equal(9);
    expect(cuitCheckDigit('3071228143')).to.equal(6);
    expect(cuitCheckDigit('3072222222')).to.equal(5);
  });

  it('maps 11 − r = 11 to 0', () => {
    // 2·5 + 2·6 = 22, r = 0
    expect(cuitCheckDigit('2000020000')).to.equal(0);
  });

  it('has no digit when 11 − r is 10', () => {
    // 2·5 + 1·2 = 12, r = 1
    expect(cuitCheckDigit('2000000001')).to.equal(null);
    expect(isValidCuit('20000000010')).to.equal(false);
  });

  it('accepts the public sample CUITs of FORMATS.md and refuses one wrong digit', () => {
    for (const cuit of ['20000163989', '20000962997', '20000000028', '20000021742', '20060166847', '30712281436', '20000780333']) {
      expect(isValidCuit(cuit), cuit).to.equal(true);
    }
    expect(isValidCuit('20000163988')).to.equal(false);
  });

  it('reads any 11 digits to their number, the check digit aside, and refuses anything else', () => {
    expect(readCuit('20000163989')).to.equal(20000163989);
    expect(readCuit('20000163988'), 'a wrong check digit is still a CUIT to look up').to.equal(20000163988);
    expect(readCuit('00000000000')).to.equal(0);
    expect(readCuit('2000016398')).to.equal(NOT_ELEVEN_DIGITS);
    expect(readCuit('2000016398X')).to.equal(NOT_ELEVEN_DIGITS);
    expect(readCuit('20-00016398')).to.equal(NOT_ELEVEN_DIGITS);
  });

  it('verifies the check digit of a CUIT read as a number, as isValidCuit does on its text', () => {
    for (const cuit of ['20000163989', '20000962997', '30712281436', '20000780333', '27000000006', '30000000007']) {
      expect(checkDigitVerifies(Number(cuit)), cuit).to.equal(isValidCuit(cuit));
    }
    expect(checkDigitVerifies(20000163989)).to.equal(true);
    expect(checkDigitVerifies(20000163988)).to.equal(false);
    expect(checkDigitVerifies(20000000010), '11 − r = 10: no digit verifies').to.equal(false);
    expect(checkDigitVerifies(20000200000), '11 − r = 11 is 0').to.equal(true);
    for (let ten = 2000000000; ten < 2000002000; ten++) {
      const digit = cuitCheckDigit(String(ten));
      for (let last = 0; last < 10; last++) expect(checkDigitVerifies(ten * 10 + last), `${ten}${last}`).to.equal(digit === last);
    }
  });
});
