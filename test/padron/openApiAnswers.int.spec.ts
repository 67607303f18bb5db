import { expect } from 'chai';
import type { PadronService } from '#services/padron/http/server.ts';
import { openApiAnswers, type LiveAnswer, type OpenApiDocument } from '#test/support/openApiAnswers.ts';
import { startTestService } from './support/padronDatabase.ts';
import { createLookupFixture, type LookupFixture } from './support/lookupFixture.ts';

/**
 * The lookup service's live answers, its refusals included, against its own /openapi.json: every
 * status documented for its operation and every JSON body valid against the documented schema.
 */
describe('padrón: live answers against its OpenAPI document', function () {
  this.timeout(60_000);
  let fixture: LookupFixture;
  let service: PadronService;
  let limited: PadronService;
  let answers: ReturnType<typeof openApiAnswers>;

  before(async () => {
    fixture = await createLookupFixture('padron_openapi');
    service = await startTestService(fixture.db.pool);
    limited = await startTestService(fixture.db.pool, { limit: 1, windowSeconds: 3600 });
    answers = openApiAnswers((await (await fetch(`${service.url}/openapi.json`)).json()) as OpenApiDocument);
  });
  after(async () => {
    await limited?.close();
    await service?.close();
    await fixture?.db.close();
  });

  /** Sends a request to `operation` ("GET /padron/…", sent with `init.method` when given) and returns its status and what is wrong with its answer. */
  async function held(operation: string, url: string, init: RequestInit = {}): Promise<{ status: number; problems: string[] }> {
    const [method = '', path = ''] = operation.split(' ');
    const response = await fetch(url, { method, ...init });
    const answer: LiveAnswer = { status: response.status, contentType: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()).toString('latin1') };
    return { status: answer.status, problems: answers.problems(method, path, answer) };
  }

  it('answers lookups, refusals and the rate limit as documented', async () => {
    const [cuit] = fixture.cuits;
    const json = { 'content-type': 'application/json' };
    const results = [
      await held('GET /padron/cuit/{cuit}', `${service.url}/padron/cuit/${cuit}`),
      await held('GET /padron/cuit/{cuit}', `${service.url}/padron/cuit/${cuit}?state=B&regime=P`),
      await held('GET /padron/cuit/{cuit}', `${service.url}/padron/cuit/123`),
      await held('GET /padron/cuit/{cuit}', `${service.url}/padron/cuit/${cuit}?date=someday`),
      await held('POST /padron/cuits', `${service.url}/padron/cuits`, { headers: json, body: JSON.stringify({ cuits: [cuit, 'nope'] }) }),
      await held('POST /padron/cuits', `${service.url}/padron/cuits`, { headers: json, body: '{' }),
      await held('POST /padron/cuits', `${service.url}/padron/cuits`, { headers: json, body: JSON.stringify({ cuits: Array.from({ length: 5000 }, () => cuit) }) }),
      await held('GET /padron/cuit/{cuit}', `${limited.url}/padron/cuit/${cuit}`),
      await held('GET /padron/cuit/{cuit}', `${limited.url}/padron/cuit/${cuit}`),
    ];
    expect(results.flatMap((result) => result.problems)).to.deep.equal([]);
    expect(results.map((result) => result.status)).to.deep.equal([200, 200, 400, 400, 200, 400, 413, 200, 429]);
  });

  it('answers a lookup with the wrong method with 405, as documented', async () => {
    const results = [await held('GET /padron/cuit/{cuit}', `${service.url}/padron/cuit/20000000011`, { method: 'POST' }), await held('POST /padron/cuits', `${service.url}/padron/cuits`, { method: 'GET' })];
    expect(results.flatMap((result) => result.problems)).to.deep.equal([]);
    expect(results.map((result) => result.status)).to.deep.equal([405, 405]);
  });

  it('answers downloads, ranges, unknown states, health and metrics as documented', async () => {
    const etag = (await fetch(`${service.url}/padron/download`, { method: 'HEAD' })).headers.get('etag') ?? '';
    const results = [
      await held('GET /padron/download', `${service.url}/padron/download`),
      await held('GET /padron/download', `${service.url}/padron/download`, { headers: { 'if-none-match': etag } }),
      await held('GET /padron/download/{state}', `${service.url}/padron/download/B`, { headers: { range: 'bytes=0-9' } }),
      await held('GET /padron/download/{state}', `${service.url}/padron/download/B`, { headers: { range: 'bytes=99999999-' } }),
      await held('GET /padron/download/{state}', `${service.url}/padron/download/Q`),
      await held('GET /health', `${service.url}/health`),
      await held('GET /metrics', `${service.url}/metrics`),
    ];
    expect(results.flatMap((result) => result.problems)).to.deep.equal([]);
    expect(results.map((result) => result.status)).to.deep.equal([200, 304, 206, 416, 400, 200, 200]);
    expect(answers.unanswered(), 'operations no answer was held against').to.deep.equal([]);
  });
});
