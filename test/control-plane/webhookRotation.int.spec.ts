import { expect } from 'chai';
import { userIdFor } from '#services/control-plane/identity/user.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

/**
 * Issue 10, item 18: a project's push hook token was HMAC-SHA256 of its slug alone, so a leaked
 * token could not be replaced, and a project deleted and created again under the same name took
 * back the old token (anyone who had it could trigger its rebuilds). The token now includes a
 * per-project nonce that creation and rotation choose afresh.
 */
describe('rotating a project’s push hook token', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let api: string;

  before(async () => {
    platform = await startTestPlatform();
    api = platform.urls.controlPlane!;
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('viewer@example.com', 'viewer');
    await platform.createUser('admin@example.com', 'admin');
  });
  after(() => platform?.stop());

  const call = async (path: string, init: { method?: string; as?: string; json?: unknown } = {}) => {
    const res = await fetch(`${api}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...(init.as ? { authorization: basic(init.as) } : {}), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const hookPath = async (slug: string) => (await call(`/api/v1/projects/${slug}`, { as: 'dev@example.com' })).body['webhook_path'] as string;
  /** A GitHub ping: 200 when the token is the project's, 403 when not. */
  const ping = async (path: string) =>
    (await fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'ping' }, body: '{"zen":"hi","hook_id":1}' })).status;

  it('gives a new token on POST …/webhook/rotate; the old one is refused with 403 from then on', async () => {
    expect((await call('/api/v1/projects', { method: 'POST', as: 'dev@example.com', json: { name: 'Rotor' } })).status).to.equal(201);
    const old = await hookPath('rotor');
    expect(await ping(old)).to.equal(200);
    const rotated = await call('/api/v1/projects/rotor/webhook/rotate', { method: 'POST', as: 'dev@example.com' });
    expect(rotated.status).to.equal(200);
    const fresh = rotated.body['webhook_path'] as string;
    expect(fresh).to.match(/^\/webhooks\/git\/rotor\/[0-9a-f]{64}$/).and.not.equal(old);
    expect(await hookPath('rotor')).to.equal(fresh);
    expect(await ping(old), 'the old token').to.equal(403);
    expect(await ping(fresh), 'the new token').to.equal(200);
    const { events } = await platform.infra.store.readStream('project-rotor');
    expect(events.at(-1)).to.deep.include({ type: 'ProjectWebhookRotated' });
    expect(events.at(-1)?.metadata.actor, 'who rotated it is recorded').to.equal(userIdFor('dev@example.com'));
  });

  it('gives a project deleted and created again under the same name a new token', async () => {
    expect((await call('/api/v1/projects', { method: 'POST', as: 'dev@example.com', json: { name: 'Phoenix' } })).status).to.equal(201);
    const first = await hookPath('phoenix');
    const { serviceToken } = resolvePlatformSecrets(platform.config);
    const deleted = await fetch(`${api}/internal/projects/phoenix/delete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serviceToken}`, 'x-forja-actor': userIdFor('admin@example.com'), 'content-type': 'application/json' },
      body: JSON.stringify({ confirm_name: 'Phoenix' }),
    });
    expect(deleted.status).to.equal(200);
    expect(await ping(first), 'no project any more').to.equal(404);
    expect((await call('/api/v1/projects', { method: 'POST', as: 'dev@example.com', json: { name: 'Phoenix' } })).status).to.equal(201);
    const second = await hookPath('phoenix');
    expect(second).to.match(/^\/webhooks\/git\/phoenix\/[0-9a-f]{64}$/).and.not.equal(first);
    expect(await ping(first), 'the deleted project’s token').to.equal(403);
    expect(await ping(second)).to.equal(200);
  });

  it('lets developers rotate, not viewers; an unknown project is 404 and a malformed slug 422', async () => {
    expect((await call('/api/v1/projects/rotor/webhook/rotate', { method: 'POST', as: 'viewer@example.com' })).status).to.equal(403);
    expect((await call('/api/v1/projects/rotor/webhook/rotate', { method: 'POST' })).status).to.equal(401);
    expect(await call('/api/v1/projects/no-such-project/webhook/rotate', { method: 'POST', as: 'dev@example.com' })).to.deep.equal({ status: 404, body: { detail: 'no such project' } });
    expect((await call('/api/v1/projects/Bad_Slug/webhook/rotate', { method: 'POST', as: 'dev@example.com' })).status).to.equal(422);
  });
});
