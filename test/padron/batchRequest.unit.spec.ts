import { expect } from 'chai';
import { parseBatch } from '#services/padron/http/batchLookup.ts';
import { BadLookupRequest } from '#services/padron/lookup/requestTerms.ts';

/** `levels` brackets (or `{"a":` objects) around `leaf`, as a client would send them. */
const nested = (levels: number, leaf: string, open = '[', close = ']') => `${open.repeat(levels)}${leaf}${close.repeat(levels)}`;

describe('padrón batch request (issue 10, item 10)', () => {
  it('refuses an entry nested 10,000 arrays deep, naming the entry', () => {
    // Before: the entry was listed in `invalid` through JSON.stringify, which overflowed the stack (503).
    expect(() => parseBatch(`{"cuits": ["20000000011", ${nested(10_000, '"20000000011"')}]}`)).to.throw(BadLookupRequest, /^"cuits" must hold only strings: entry 1 is an array$/);
  });

  it('refuses an entry nested 10,000 objects deep', () => {
    expect(() => parseBatch(`{"cuits": [${nested(10_000, '1', '{"a":', '}')}]}`)).to.throw(BadLookupRequest, /^"cuits" must hold only strings: entry 0 is an object$/);
  });

  it('refuses "cuits" that is itself nested arrays', () => {
    expect(() => parseBatch(`{"cuits": ${nested(10_000, '')}}`)).to.throw(BadLookupRequest, /^"cuits" must hold only strings: entry 0 is an array$/);
  });

  it('refuses entries of any other type than string', () => {
    for (const [entry, kind] of [
      ['42', 'a number'],
      ['null', 'null'],
      ['true', 'a boolean'],
      ['{}', 'an object'],
      ['[]', 'an array'],
    ] as const) {
      expect(() => parseBatch(`{"cuits": ["20000000011", ${entry}]}`), entry).to.throw(BadLookupRequest, new RegExp(`^"cuits" must hold only strings: entry 1 is ${kind}$`));
    }
  });

  it('refuses a filter nested 10,000 deep', () => {
    expect(() => parseBatch(`{"cuits": [], "state": ${nested(10_000, '"B"')}}`)).to.throw(BadLookupRequest, /^unknown state \(an array\)/);
    expect(() => parseBatch(`{"cuits": [], "date": ${nested(10_000, '1', '{"a":', '}')}}`)).to.throw(BadLookupRequest, /^invalid date \(an object\)/);
  });

  it('still lists malformed strings in invalid and ignores unknown fields, however deep', () => {
    const request = parseBatch(`{"cuits": ["20-00000001-1", "bad"], "extra": ${nested(10_000, '0')}}`);
    expect(request.cuits.map((cuit) => cuit.text)).to.deep.equal(['20000000011']);
    expect(request.invalid).to.deep.equal(['bad']);
  });
});
