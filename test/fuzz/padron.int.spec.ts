import { expect } from 'chai';
import type { PadronService } from '#services/padron/http/server.ts';
import { createLookupFixture, type LookupFixture } from '#test/padron/support/lookupFixture.ts';
import { startTestService } from '#test/padron/support/padronDatabase.ts';
import { expectHealthy, expectSound, fuzzClient, type FuzzClient } from '#test/support/fuzzClient.ts';
import { FUZZ_TIMEOUT_MS, fuzzProperty, fuzzTally, runsByWeight } from '#test/support/fuzzRun.ts';
import { padronTargets, requestOf, type PadronOpenApi, type PadronTarget } from './padronTargets.ts';

/** This spec's part of FORJA_FUZZ_RUNS. */
const SHARE = 0.15;

/**
 * Every operation of the padrón lookup's OpenAPI document (built from schemas/padron), with
 * generated and spoiled CUITs, filters, ranges and batch bodies: no 5xx, no stack trace, JSON
 * where the document says so, and `/health` keeps answering.
 */
describe('fuzzing the padrón lookup', function () {
  this.timeout(FUZZ_TIMEOUT_MS);
  let fixture: LookupFixture;
  let service: PadronService;
  let client: FuzzClient;
  let targets: PadronTarget[] = [];
  const tally = fuzzTally('padrón');

  before(async () => {
    fixture = await createLookupFixture('padron_fuzz');
    service = await startTestService(fixture.db.pool);
    client = fuzzClient(service.url);
    const openApi = JSON.parse((await client.send({ method: 'GET', path: '/openapi.json' })).body) as PadronOpenApi;
    targets = padronTargets(openApi, fixture.cuits);
    tally.start();
  });
  after(async () => {
    console.log(`      ${tally.summary()}`);
    client?.close();
    await service?.close();
    await fixture?.db.close();
  });

  // The operations come from the running service's document, known only after `before`: one test walks them all.
  it('answers every case of every operation soundly, and stays up', async () => {
    expect(targets.map((target) => target.name)).to.include.members(['GET /padron/cuit/{cuit}', 'POST /padron/cuits', 'GET /padron/download', 'GET /health']);
    const failures: string[] = [];
    for (const [target, runs] of runsByWeight(targets, SHARE)) {
      try {
        tally.add(
          await fuzzProperty(`padrón ${target.name}`, target.arbitrary, runs, async (plan) => {
            const req = requestOf(target, plan);
            const res = await client.send(req);
            expectSound(res, `${req.method} ${req.path.slice(0, 200)}`, { json: target.json(res) && req.method !== 'OPTIONS' });
          }),
        );
      } catch (error) {
        failures.push((error as Error).message);
      }
      await expectHealthy(client, 'padrón');
    }
    expect(failures, failures.join('\n\n')).to.deep.equal([]);
  });
});
