import { expect } from 'chai';
import type { PadronService } from '#services/padron/http/server.ts';
import { padronApiValidator } from '#services/padron/padronSchemas.ts';
import { describeErrors } from '#shared/schemaValidator.ts';
import { startTestService } from './support/padronDatabase.ts';
import { agipLines, writeLines } from './support/padronFiles.ts';
import { createLookupFixture, type LookupFixture } from './support/lookupFixture.ts';

interface Result {
  state: string;
  regime: string;
  aliquot: number;
  date_from: string | null;
  date_to: string | null;
  last_update: string;
}

describe('padrón lookup API: GET /padron/cuit/{cuit}', function () {
  this.timeout(60_000);
  let fixture: LookupFixture;
  let service: PadronService;
  const validLookup = padronApiValidator('CuitLookup');
  const validError = padronApiValidator('Error');

  before(async () => {
    fixture = await createLookupFixture('padron_lookup');
    service = await startTestService(fixture.db.pool);
  });
  after(async () => {
    await service.close();
    await fixture.db.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${service.url}${path}`, { headers });
  const lookup = async (path: string) => {
    const response = await get(path);
    const body = (await response.json()) as { cuit: string; results: Result[] };
    if (response.status === 200 && !validLookup(body)) throw new Error(`not a CuitLookup: ${describeErrors(validLookup)}`);
    return { response, body };
  };
  const summary = (results: Result[]) => results.map((result) => `${result.state}${result.regime} ${result.aliquot}`);

  it('answers every rate of a CUIT, sorted by state then regime, exactly as the spec lists the fields', async () => {
    const [a = ''] = fixture.cuits;
    const { response, body } = await lookup(`/padron/cuit/${a}`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(body.cuit).to.equal(a);
    expect(summary(body.results)).to.deep.equal(['BP 6', 'BR 1.5', 'CP 3', 'CR 2', 'XP 0.5']);
    expect(body.results[0]).to.deep.equal({
      state: 'B',
      state_name: 'Buenos Aires',
      cuit: a,
      regime: 'P',
      regime_name: 'Percepcion',
      aliquot: 6,
      date_from: fixture.period.from,
      date_to: fixture.period.to,
      last_update: fixture.lastUpdate['B'],
    });
    expect(body.results.map((result) => Object.keys(result).join(','))).to.satisfy((keys: string[]) => keys.every((key) => key === 'state,state_name,cuit,regime,regime_name,aliquot,date_from,date_to,last_update'));
    expect(body.results[2]).to.include({ state_name: 'CABA', last_update: fixture.lastUpdate['C'] });
    expect(body.results[1]?.last_update, 'one last_update per jurisdiction, the newest of its loads').to.equal(body.results[0]?.last_update);
    expect(body.results[4]).to.include({ state_name: 'Cordoba', regime_name: 'Percepcion' });
  });

  it('accepts hyphens and spaces', async () => {
    const [a = ''] = fixture.cuits;
    const dashed = `${a.slice(0, 2)}-${a.slice(2, 10)}-${a.slice(10)}`;
    for (const path of [dashed, `${a.slice(0, 2)}%20${a.slice(2)}`, `%20${dashed}%20`]) {
      const { response, body } = await lookup(`/padron/cuit/${path}`);
      expect(response.status, path).to.equal(200);
      expect(body.cuit).to.equal(a);
      expect(body.results).to.have.length(5);
    }
  });

  it('answers an empty list for a CUIT with no rates, and none for a removed (B) subject', async () => {
    const [, b = '', c = '', d = ''] = fixture.cuits;
    expect((await lookup(`/padron/cuit/${d}`)).body).to.deep.equal({ cuit: d, results: [] });
    expect((await lookup('/padron/cuit/20000000000')).body).to.deep.equal({ cuit: '20000000000', results: [] });
    expect(summary((await lookup(`/padron/cuit/${b}`)).body.results)).to.deep.equal(['BP 2.75']);
    expect((await lookup(`/padron/cuit/${c}`)).body.results, 'marca alta B: no current rate').to.deep.equal([]);
  });

  it('filters by state and regime', async () => {
    const [a = ''] = fixture.cuits;
    expect(summary((await lookup(`/padron/cuit/${a}?state=C`)).body.results)).to.deep.equal(['CP 3', 'CR 2']);
    expect(summary((await lookup(`/padron/cuit/${a}?regime=R`)).body.results)).to.deep.equal(['BR 1.5', 'CR 2']);
    expect(summary((await lookup(`/padron/cuit/${a}?state=B&regime=P`)).body.results)).to.deep.equal(['BP 6']);
    expect((await lookup(`/padron/cuit/${a}?state=T`)).body.results).to.deep.equal([]);
  });

  it('answers another day from the loads valid that day', async () => {
    const [a = ''] = fixture.cuits;
    const lastMonth = await lookup(`/padron/cuit/${a}?state=C&date=${fixture.lastMonth.from}`);
    expect(summary(lastMonth.body.results)).to.deep.equal(['CP 4', 'CR 4']);
    expect(lastMonth.body.results[0]).to.include({ date_from: fixture.lastMonth.from, date_to: fixture.lastMonth.to });
    expect(summary((await lookup(`/padron/cuit/${a}?date=${fixture.lastMonth.to}`)).body.results), 'B and X had no load yet').to.deep.equal(['CP 4', 'CR 4']);
    expect((await lookup(`/padron/cuit/${a}?date=2001-01-01`)).body.results).to.deep.equal([]);
    expect(summary((await lookup(`/padron/cuit/${a}?state=C&date=${fixture.period.to}`)).body.results)).to.deep.equal(['CP 3', 'CR 2']);
  });

  const badRequests: Array<[string, string]> = [
    ['/padron/cuit/2000000001', 'invalid CUIT "2000000001": it needs exactly 11 digits (hyphens and spaces are accepted)'],
    ['/padron/cuit/200000000011', 'invalid CUIT "200000000011": it needs exactly 11 digits (hyphens and spaces are accepted)'],
    ['/padron/cuit/2000000001x', 'invalid CUIT "2000000001x": it needs exactly 11 digits (hyphens and spaces are accepted)'],
    ['/padron/cuit/20.00000001.1', 'invalid CUIT "20.00000001.1": it needs exactly 11 digits (hyphens and spaces are accepted)'],
    ['/padron/cuit/', 'invalid CUIT "": it needs exactly 11 digits (hyphens and spaces are accepted)'],
    ['/padron/cuit/%E0%A4%A', 'invalid CUIT "%E0%A4%A": malformed percent-encoding'],
    ['/padron/cuit/20000000011?state=Z', 'unknown state "Z"; one of A, B, C, E, S, T, X'],
    ['/padron/cuit/20000000011?regime=PR', 'unknown regime "PR"; P (perception) or R (withholding)'],
    ['/padron/cuit/20000000011?date=2026-13-01', 'invalid date "2026-13-01"; a day as YYYY-MM-DD'],
  ];
  for (const [path, detail] of badRequests) {
    it(`answers 400 with a detail for ${path}`, async () => {
      const response = await get(path);
      expect(response.status).to.equal(400);
      const body: unknown = await response.json();
      expect(validError(body)).to.equal(true);
      expect(body).to.deep.equal({ detail });
    });
  }

  it('refuses other methods with 405 and Allow', async () => {
    const response = await fetch(`${service.url}/padron/cuit/20000000011`, { method: 'DELETE' });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.equal('GET, HEAD');
    expect(await response.json()).to.deep.equal({ detail: 'method DELETE not allowed on /padron/cuit/{cuit}; use GET' });
  });

  it('sends a strong ETag and answers 304 without a body when it matches', async () => {
    const [a = ''] = fixture.cuits;
    const first = await get(`/padron/cuit/${a}`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).to.match(/^"[^"]+"$/);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get(`/padron/cuit/${a}`, { 'if-none-match': header });
      expect(again.status, header).to.equal(304);
      expect(again.headers.get('etag')).to.equal(etag);
      expect(await again.text()).to.equal('');
    }
    const filtered = await get(`/padron/cuit/${a}?state=C`, { 'if-none-match': etag });
    expect(filtered.status, 'other filters, other tag').to.equal(200);
    expect(filtered.headers.get('etag')).to.not.equal(etag);
    expect((await get(`/padron/cuit/${fixture.cuits[1] ?? ''}`, { 'if-none-match': etag })).status, 'other CUIT').to.equal(200);
  });

  it('changes the tag when a publish changes the loads, and serves the new load', async () => {
    const [a = ''] = fixture.cuits;
    const before = await get(`/padron/cuit/${a}?state=C`);
    const etag = before.headers.get('etag') ?? '';
    await fixture.db.load({ state: 'C', path: writeLines(fixture.folder, 'ARDJU-corrected.TXT', agipLines(fixture.period, [{ cuit: a, perception: '3,50', withholding: '2,00' }])) });
    expect(await service.registry.refresh()).to.equal(true);
    const after = await get(`/padron/cuit/${a}?state=C`, { 'if-none-match': etag });
    expect(after.status).to.equal(200);
    expect(after.headers.get('etag')).to.not.equal(etag);
    expect(summary(((await after.json()) as { results: Result[] }).results)).to.deep.equal(['CP 3.5', 'CR 2']);
  });
});
