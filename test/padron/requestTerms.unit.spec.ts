import { expect } from 'chai';
import { BadLookupRequest, filtersFromQuery, normalizeCuit, parseFilters } from '#services/padron/lookup/requestTerms.ts';

describe('padrón request terms', () => {
  it('accepts 11 digits with hyphens and spaces', () => {
    expect(normalizeCuit('20-12345678-6')).to.deep.equal({ value: 20123456786, text: '20123456786' });
    expect(normalizeCuit(' 20 12345678 6 ')).to.deep.equal({ value: 20123456786, text: '20123456786' });
    expect(normalizeCuit('30712281436')?.text).to.equal('30712281436');
  });

  it('refuses anything but 11 digits, and characters other than hyphens and spaces', () => {
    for (const text of ['', '2012345678', '201234567861', '20.12345678.6', '2012345678x', '20_12345678_6', '２0123456786']) {
      expect(normalizeCuit(text), text).to.equal(null);
    }
  });

  it('keeps no filter when none or empty ones are given', () => {
    expect(parseFilters(undefined, '', undefined)).to.deep.equal({});
    expect(filtersFromQuery('')).to.deep.equal({});
  });

  it('reads state, regime and date', () => {
    expect(filtersFromQuery('state=C&regime=R&date=2026-02-28')).to.deep.equal({ state: 'C', regime: 'R', date: '2026-02-28' });
  });

  const refused: Array<[string, RegExp]> = [
    ['state=Z', /^unknown state "Z"; one of A, B, C, E, S, T, X$/],
    ['state=c', /^unknown state "c"/],
    ['regime=X', /^unknown regime "X"; P \(perception\) or R \(withholding\)$/],
    ['date=2026-02-30', /^invalid date "2026-02-30"; a day as YYYY-MM-DD$/],
    ['date=20260201', /^invalid date/],
    ['state=C&state=B', /^state given 2 times; give it once$/],
  ];
  for (const [query, message] of refused) {
    it(`refuses ${query}`, () => {
      expect(() => filtersFromQuery(query)).to.throw(BadLookupRequest, message);
    });
  }

  it('refuses filters of the wrong type in a JSON body', () => {
    expect(() => parseFilters(3, undefined, undefined)).to.throw(BadLookupRequest, /unknown state 3/);
    expect(() => parseFilters(undefined, ['P'], undefined)).to.throw(BadLookupRequest, /^unknown regime \(an array\); P \(perception\) or R \(withholding\)$/);
    expect(() => parseFilters(undefined, undefined, null)).to.throw(BadLookupRequest, /^invalid date null; a day as YYYY-MM-DD$/);
  });

  it('names a deeply nested filter by its kind instead of serializing it (issue 10, item 10)', () => {
    // Before: the message was built with JSON.stringify, whose recursion overflowed the stack, and the batch answered 503.
    const deepArray: unknown = JSON.parse(`${'['.repeat(10_000)}"B"${']'.repeat(10_000)}`);
    const deepObject: unknown = JSON.parse(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    expect(() => parseFilters(deepArray, undefined, undefined)).to.throw(BadLookupRequest, /^unknown state \(an array\); one of A, B, C, E, S, T, X$/);
    expect(() => parseFilters(undefined, deepObject, undefined)).to.throw(BadLookupRequest, /^unknown regime \(an object\)/);
    expect(() => parseFilters(undefined, undefined, deepObject)).to.throw(BadLookupRequest, /^invalid date \(an object\)/);
  });
});
