import { expect } from 'chai';
import { authorizationTable } from '#shared/auth/authorizationTable.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { expectHealthy, expectSound, fuzzClient, type FuzzClient } from '#test/support/fuzzClient.ts';
import { FUZZ_TIMEOUT_MS, fuzzProperty, fuzzTally, runsByWeight } from '#test/support/fuzzRun.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { USERS } from '#test/support/webPlatform.ts';
import { controlPlaneTargets, requestOf, type ControlPlaneFixture, type ControlPlaneTarget } from './controlPlaneTargets.ts';

/** This spec's part of FORJA_FUZZ_RUNS. */
const SHARE = 0.45;
const RULES = authorizationTable.filter((rule) => rule.process === 'control-plane');

/**
 * Every control-plane route of the authorization table, with bodies generated from the JSON
 * Schemas its OpenAPI document names and then spoiled (wrong types, megabytes, control
 * characters, deep nesting, unknown and missing fields, duplicate keys, broken JSON, other
 * content types), as every kind of caller: no 5xx, no stack trace, JSON, and `/health` answers.
 */
describe('fuzzing the control-plane', function () {
  this.timeout(FUZZ_TIMEOUT_MS);
  let platform: TestPlatform;
  let client: FuzzClient;
  let fixture: ControlPlaneFixture;
  let targets: ControlPlaneTarget[] = [];
  const tally = fuzzTally('control-plane');

  before(async () => {
    platform = await startTestPlatform();
    await Promise.all([
      platform.createUser(USERS.viewer, 'viewer'),
      platform.createUser(USERS.developer, 'developer'),
      platform.createUser(USERS.admin, 'admin'),
      platform.createUser(USERS.deactivated, 'admin', undefined, false),
    ]);
    client = fuzzClient(platform.urls['controlPlane']!);
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await client.send({ method, path, headers: { authorization: basic(USERS.developer), 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
      expect(res.status, `${method} ${path}: ${res.body}`).to.be.below(300);
      return JSON.parse(res.body) as Record<string, unknown>;
    };
    await api('POST', '/api/v1/projects', { name: 'Fuzz Target' });
    await api('POST', '/api/v1/instances', { name: 'Fuzz Instance', project: 'fuzz-target', erp_version: '18.0' });
    await api('POST', '/api/v1/instances', { name: 'Hooked', project: 'Fuzz Hook', erp_version: '18.0', git_repo: 'https://git.example.com/fuzz/erp.git', branch: 'main' });
    const hookPath = String((await api('GET', '/api/v1/projects/fuzz-hook'))['webhook_path']);
    fixture = {
      project: 'fuzz-target',
      instance: 'fuzz-target-fuzz-instance',
      hookProject: 'fuzz-hook',
      hookToken: hookPath.split('/').pop()!,
      serviceToken: resolvePlatformSecrets(platform.config).serviceToken,
    };
    const openApi = await client.send({ method: 'GET', path: '/openapi.json' });
    targets = controlPlaneTargets(JSON.parse(openApi.body) as Parameters<typeof controlPlaneTargets>[0], fixture);
    tally.start();
  });
  after(async () => {
    console.log(`      ${tally.summary()}`);
    client?.close();
    await platform?.stop();
  });

  it('has a target for every control-plane route of the authorization table', () => {
    expect(targets.map((target) => target.name)).to.deep.equal(RULES.map((rule) => `${rule.method} ${rule.path}`));
  });

  for (const rule of RULES) {
    it(`${rule.method} ${rule.path} (${rule.access})`, async () => {
      const target = targets.find((candidate) => candidate.rule === rule);
      if (!target) throw new Error(`no fuzz target for ${rule.method} ${rule.path}`);
      const runs = runsByWeight(targets, SHARE).get(target)!;
      tally.add(
        await fuzzProperty(`control-plane ${target.name}`, target.arbitrary, runs, async (plan) => {
          const req = requestOf(target, plan, fixture);
          // Express answers OPTIONS itself with the allowed methods as text: not one of the route's answers.
          expectSound(await client.send(req), `${req.method} ${req.path.slice(0, 200)}`, { json: target.json && req.method !== 'OPTIONS' });
        }),
      );
      await expectHealthy(client, 'control-plane');
    });
  }
});
