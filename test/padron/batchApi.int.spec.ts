import { expect } from 'chai';
import type { PadronService } from '#services/padron/http/server.ts';
import { padronApiValidator } from '#services/padron/padronSchemas.ts';
import { describeErrors } from '#shared/schemaValidator.ts';
import { startTestService } from './support/padronDatabase.ts';
import { validCuit } from './support/padronFiles.ts';
import { createLookupFixture, type LookupFixture } from './support/lookupFixture.ts';

type Results = Record<string, Array<{ state: string; regime: string; aliquot: number }>>;

describe('padrón lookup API: POST /padron/cuits', function () {
  this.timeout(60_000);
  let fixture: LookupFixture;
  let service: PadronService;
  const validResponse = padronApiValidator('CuitsBatchResponse');

  before(async () => {
    fixture = await createLookupFixture('padron_batch');
    service = await startTestService(fixture.db.pool);
  });
  after(async () => {
    await service.close();
    await fixture.db.close();
  });

  const post = (body: unknown, raw = false) =>
    fetch(`${service.url}/padron/cuits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw ? (body as string) : JSON.stringify(body) });
  const batch = async (body: unknown) => {
    const response = await post(body);
    const json = (await response.json()) as { results: Results; invalid: string[] };
    expect(response.status).to.equal(200);
    if (!validResponse(json)) throw new Error(`not a CuitsBatchResponse: ${describeErrors(validResponse)}`);
    return json;
  };
  const short = (results: Results) => Object.fromEntries(Object.entries(results).map(([cuit, rates]) => [cuit, rates.map((rate) => `${rate.state}${rate.regime} ${rate.aliquot}`)]));

  it('answers each valid CUIT keyed by its normalized form, lists invalid entries, collapses duplicates', async () => {
    const [a = '', b = '', c = '', d = ''] = fixture.cuits;
    const body = await batch({ cuits: [a, `${a.slice(0, 2)}-${a.slice(2, 10)}-${a.slice(10)}`, b, c, d, '123', 'abc', '', '123'] });
    expect(short(body.results)).to.deep.equal({ [a]: ['BP 6', 'BR 1.5', 'CP 3', 'CR 2', 'XP 0.5'], [b]: ['BP 2.75'], [c]: [], [d]: [] });
    expect(Object.keys(body.results)).to.deep.equal([a, b, c, d]);
    expect(body.invalid).to.deep.equal(['123', 'abc', '']);
  });

  it('results are the same objects the single lookup answers', async () => {
    const [a = ''] = fixture.cuits;
    const single = (await (await fetch(`${service.url}/padron/cuit/${a}`)).json()) as { results: unknown[] };
    expect((await batch({ cuits: [a] })).results[a]).to.deep.equal(single.results);
  });

  it('applies state, regime and date', async () => {
    const [a = '', b = ''] = fixture.cuits;
    expect(short((await batch({ cuits: [a, b], state: 'B', regime: 'P' })).results)).to.deep.equal({ [a]: ['BP 6'], [b]: ['BP 2.75'] });
    expect(short((await batch({ cuits: [a], date: fixture.lastMonth.from })).results)).to.deep.equal({ [a]: ['CP 4', 'CR 4'] });
  });

  it('takes 500 CUITs', async () => {
    const cuits = Array.from({ length: 500 }, (_, i) => validCuit(2100000000 + i * 10));
    const body = await batch({ cuits: [...cuits.slice(0, 499), fixture.cuits[0]] });
    expect(Object.keys(body.results)).to.have.length(500);
    expect(body.results[fixture.cuits[0] ?? '']).to.have.length(5);
  });

  it('takes an empty list', async () => {
    expect(await batch({ cuits: [] })).to.deep.equal({ results: {}, invalid: [] });
  });

  const refusals: Array<[string, unknown, boolean, string]> = [
    ['more than 500 entries', { cuits: Array.from({ length: 501 }, () => '20000000011') }, false, 'at most 500 CUITs per request (got 501); split the list'],
    ['no cuits', { state: 'B' }, false, '"cuits" is required: an array of up to 500 CUITs'],
    ['cuits not an array', { cuits: '20000000011' }, false, '"cuits" must be an array of CUIT strings'],
    ['a body that is not an object', ['20000000011'], false, 'the body must be a JSON object with a "cuits" array'],
    ['a body that is not JSON', '{"cuits": [', true, 'the body must be JSON: {"cuits": ["20-12345678-6", …], "state"?, "regime"?, "date"?}'],
    ['an empty body', '', true, 'the body must be JSON: {"cuits": ["20-12345678-6", …], "state"?, "regime"?, "date"?}'],
    ['an unknown state', { cuits: [], state: 'Q' }, false, 'unknown state "Q"; one of A, B, C, E, S, T, X'],
    ['an unknown regime', { cuits: [], regime: 'X' }, false, 'unknown regime "X"; P (perception) or R (withholding)'],
    ['a bad date', { cuits: [], date: 'yesterday' }, false, 'invalid date "yesterday"; a day as YYYY-MM-DD'],
  ];
  for (const [what, body, raw, detail] of refusals) {
    it(`answers 400 for ${what}`, async () => {
      const response = await post(body, raw);
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.equal({ detail });
    });
  }

  describe('deeply nested and mistyped entries (issue 10, item 10)', () => {
    // Each of these answered 503 "the registry database is unavailable": JSON.stringify overflowed the stack on the nesting.
    const nested = (levels: number, leaf: string, open = '[', close = ']') => `${open.repeat(levels)}${leaf}${close.repeat(levels)}`;
    const attacks: Array<[string, string, string]> = [
      ['an entry nested 10,000 arrays deep', `{"cuits": ["20000000011", ${nested(10_000, '"20000000011"')}]}`, '"cuits" must hold only strings: entry 1 is an array'],
      ['"cuits" nested 10,000 arrays deep', `{"cuits": ${nested(10_000, '')}}`, '"cuits" must hold only strings: entry 0 is an array'],
      ['an entry nested 10,000 objects deep', `{"cuits": [${nested(10_000, '1', '{"a":', '}')}]}`, '"cuits" must hold only strings: entry 0 is an object'],
      ['a state nested 10,000 deep', `{"cuits": [], "state": ${nested(10_000, '"B"')}}`, 'unknown state (an array); one of A, B, C, E, S, T, X'],
      ['a regime nested 10,000 objects deep', `{"cuits": [], "regime": ${nested(10_000, '"P"', '{"a":', '}')}}`, 'unknown regime (an object); P (perception) or R (withholding)'],
      ['a number among the CUITs', '{"cuits": ["20000000011", 20000000011]}', '"cuits" must hold only strings: entry 1 is a number'],
      ['null among the CUITs', '{"cuits": [null]}', '"cuits" must hold only strings: entry 0 is null'],
      ['a boolean among the CUITs', '{"cuits": ["20000000011", "x", true]}', '"cuits" must hold only strings: entry 2 is a boolean'],
    ];
    for (const [what, body, detail] of attacks) {
      it(`answers 400 for ${what}, and keeps serving`, async () => {
        expect(body.length, 'under the 64 KiB body limit, so the parser sees it').to.be.below(64 * 1024);
        const response = await post(body, true);
        expect(response.status).to.equal(400);
        expect(await response.json()).to.deep.equal({ detail });
        const [a = ''] = fixture.cuits;
        expect(Object.keys((await batch({ cuits: [a] })).results)).to.deep.equal([a]);
        expect((await fetch(`${service.url}/health`)).status).to.equal(200);
      });
    }
  });

  it('answers 413 for a body over 64 KiB', async () => {
    const response = await post({ cuits: ['x'.repeat(70_000)] });
    expect(response.status).to.equal(413);
    expect(await response.json()).to.deep.equal({ detail: 'the body is larger than 64 KiB' });
  });

  it('refuses GET with 405', async () => {
    const response = await fetch(`${service.url}/padron/cuits`);
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.equal('POST');
  });
});
