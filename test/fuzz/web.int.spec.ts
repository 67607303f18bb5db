import { expect } from 'chai';
import { authorizationTable } from '#shared/auth/authorizationTable.ts';
import { expectHealthy, expectSound, fuzzClient, type FuzzClient } from '#test/support/fuzzClient.ts';
import { FUZZ_TIMEOUT_MS, fuzzProperty, fuzzTally, runsByWeight } from '#test/support/fuzzRun.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { webSession, type WebSession } from '#test/support/webSession.ts';
import { requestOf, webTargets, type FuzzSession, type WebFixture } from './webTargets.ts';

/** This spec's part of FORJA_FUZZ_RUNS. */
const SHARE = 0.4;
const RULES = authorizationTable.filter((rule) => rule.process === 'web');

async function fuzzSession(session: WebSession): Promise<FuzzSession> {
  const csrf = await session.csrfToken();
  if (!session.cookie) throw new Error('the session has no cookie');
  return { cookie: session.cookie, csrf };
}

/**
 * Every web route of the authorization table: pages with generated and spoiled queries and path
 * parameters, forms (urlencoded and multipart) with the fields each route reads, generated from
 * the API's JSON Schemas and spoiled, with a valid session and CSRF token and without: no 5xx,
 * no stack trace, and web and the control-plane behind it keep answering `/health`.
 */
describe('fuzzing web', function () {
  this.timeout(FUZZ_TIMEOUT_MS);
  let platform: WebPlatform;
  let web: FuzzClient;
  let controlPlane: FuzzClient;
  let fixture: WebFixture;
  const targets = webTargets({ project: 'fuzz-target', instance: 'fuzz-target-fuzz-instance' });
  const runs = runsByWeight(targets, SHARE);
  const tally = fuzzTally('web');

  before(async () => {
    platform = await startWebPlatform();
    web = fuzzClient(platform.web);
    controlPlane = fuzzClient(platform.controlPlane);
    const developer = await platform.signedIn('developer');
    expect((await developer.post('/projects', { name: 'Fuzz Target' })).location).to.equal('/projects/fuzz-target');
    expect((await developer.post('/instances', { name: 'Fuzz Instance', project: 'fuzz-target', erp_version: '18.0' })).location).to.equal('/instances/fuzz-target-fuzz-instance');
    fixture = {
      project: 'fuzz-target',
      instance: 'fuzz-target-fuzz-instance',
      sessions: {
        anonymous: await fuzzSession(platform.visitor()),
        viewer: await fuzzSession(await platform.signedIn('viewer')),
        developer: await fuzzSession(developer),
        admin: await fuzzSession(await platform.signedIn('admin')),
      },
      freshVisitor: () => fuzzSession(webSession(platform.web)),
    };
    tally.start();
  });
  after(async () => {
    console.log(`      ${tally.summary()}`);
    web?.close();
    controlPlane?.close();
    await platform?.stop();
  });

  it('has a target for every web route of the authorization table', () => {
    expect(targets.map((target) => target.name)).to.deep.equal(RULES.map((rule) => `${rule.method} ${rule.path}`));
  });

  for (const target of targets) {
    it(`${target.name} (${target.rule.access})`, async () => {
      tally.add(
        await fuzzProperty(`web ${target.name}`, target.arbitrary, runs.get(target)!, async (plan) => {
          const req = await requestOf(target, plan, fixture);
          expectSound(await web.send(req), `${req.method} ${req.path.slice(0, 200)}`, { json: target.rule.path === '/health' });
        }),
      );
      await expectHealthy(web, 'web');
      await expectHealthy(controlPlane, 'control-plane');
    });
  }
});
