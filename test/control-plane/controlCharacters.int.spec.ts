import { expect } from 'chai';
import { userIdFor } from '#services/control-plane/identity/user.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

interface Endpoint {
  method: 'POST' | 'PUT';
  path: string;
  /** A body the endpoint takes; each of its string fields (and a module name) gets the control characters in turn. */
  body: Record<string, unknown>;
  internal?: boolean;
}

/**
 * The audit's finding: a name or URL with U+0000 made PostgreSQL refuse the append, and the API
 * answered 500. Every string field of every create and update endpoint, API and internal, now
 * answers 422 naming the field, and nothing is recorded.
 */
describe('control characters in request bodies', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let api: string;
  let serviceToken: string;

  before(async () => {
    platform = await startTestPlatform();
    api = platform.urls.controlPlane!;
    serviceToken = resolvePlatformSecrets(platform.config).serviceToken;
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('admin@example.com', 'admin');
    const created = await send({ method: 'POST', path: '/api/v1/projects', body: { name: 'Control Target' } });
    expect(created.status).to.equal(201);
  });
  after(() => platform?.stop());

  async function send(endpoint: Endpoint) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (endpoint.internal) Object.assign(headers, { authorization: `Bearer ${serviceToken}`, 'x-forja-actor': userIdFor('admin@example.com') });
    else headers['authorization'] = basic('admin@example.com');
    const res = await fetch(`${api}${endpoint.path}`, { method: endpoint.method, headers, body: JSON.stringify(endpoint.body) });
    return { status: res.status, ...((await res.json()) as { detail: Array<{ loc: Array<string | number>; msg: string; type: string }> | string }) };
  }

  const instance = { name: 'dev', project: 'control-target', erp_version: '17.0', git_repo: 'git@git.example.com:acme/erp.git', branch: 'main', clone_from: 'control-target-dev', modules: ['sale'] };
  const endpoints: Endpoint[] = [
    { method: 'POST', path: '/api/v1/projects', body: { name: 'Acme' } },
    { method: 'PUT', path: '/api/v1/projects/control-target/repository', body: { git_repo: 'git@git.example.com:acme/erp.git' } },
    { method: 'POST', path: '/api/v1/instances', body: instance },
    { method: 'POST', path: '/api/v1/instances/control-target-dev/action', body: { action: 'stop' } },
    { method: 'POST', path: '/internal/projects', body: { name: 'Acme' }, internal: true },
    { method: 'POST', path: '/internal/projects/control-target/repository', body: { git_repo: 'git@git.example.com:acme/erp.git' }, internal: true },
    { method: 'POST', path: '/internal/projects/control-target/delete', body: { confirm_name: 'Control Target' }, internal: true },
    { method: 'POST', path: '/internal/instances', body: instance, internal: true },
    { method: 'POST', path: '/internal/instances/control-target-dev/action', body: { action: 'stop' }, internal: true },
    { method: 'POST', path: '/internal/auth/verify', body: { email: 'dev@example.com', password: 'correct horse battery' }, internal: true },
    { method: 'POST', path: '/internal/users/oidc', body: { email: 'new@example.com' }, internal: true },
  ];

  for (const endpoint of endpoints) {
    for (const [field, value] of Object.entries(endpoint.body)) {
      // The password is never stored as text (only its scrypt hash), so any character may be in it.
      if (field === 'password') continue;
      for (const control of ['\u0000', '\u001b']) {
        const label = JSON.stringify(control);
        it(`${endpoint.method} ${endpoint.path}: ${label} in ${field} is a 422 naming the field, and changes nothing`, async () => {
          const poisoned = Array.isArray(value) ? [`sa${control}le`] : `${String(value).slice(0, 3)}${control}${String(value).slice(3)}`;
          const before = await platform.infra.store.headPosition();
          const res = await send({ ...endpoint, body: { ...endpoint.body, [field]: poisoned } });
          expect(res.status, JSON.stringify(res.detail)).to.equal(422);
          expect(res.detail).to.be.an('array');
          const locs = (res.detail as Array<{ loc: Array<string | number> }>).map((issue) => issue.loc.slice(0, 2).join('.'));
          expect(locs).to.include(`body.${field}`);
          expect(await platform.infra.store.headPosition(), 'no event was appended').to.equal(before);
        });
      }
    }
  }

  it('answers a project search with a control character with 422 naming q', async () => {
    for (const q of ['%00', 'a%1bb']) {
      const res = await fetch(`${api}/api/v1/projects?q=${q}`, { headers: { authorization: basic('dev@example.com') } });
      expect(res.status, q).to.equal(422);
      expect(((await res.json()) as { detail: Array<{ loc: string[] }> }).detail[0]?.loc).to.deep.equal(['query', 'q']);
    }
  });

  it('says in words what is wrong with a free-text field', async () => {
    const res = await send({ method: 'POST', path: '/api/v1/projects', body: { name: 'Acme\u0000SA' } });
    expect(res.detail).to.deep.equal([{ loc: ['body', 'name'], msg: 'must not contain control characters (U+0000 to U+001F, U+007F)', type: 'value_error.control_characters' }]);
  });

  it('accepts every printable character, accents and emoji included', async () => {
    const res = await send({ method: 'POST', path: '/api/v1/projects', body: { name: 'Ñandú «Sistemas» ✓ 🚀' } });
    expect(res.status).to.equal(201);
  });
});
