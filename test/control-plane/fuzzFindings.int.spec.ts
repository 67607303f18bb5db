import { expect } from 'chai';
import { userIdFor } from '#services/control-plane/identity/user.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

/**
 * Inputs the fuzz suite (test/fuzz) found answered with 500 "internal error", each shrunk to the
 * smallest request that did it; now each is the client's error, said in JSON.
 */
describe('control-plane: requests the fuzzer found answered 500', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let api: string;
  const admin = 'admin@example.com';

  before(async () => {
    platform = await startTestPlatform();
    api = platform.urls['controlPlane']!;
    await platform.createUser(admin, 'admin');
    expect((await send('POST', '/api/v1/projects', { body: '{"name":"Found Target"}' })).status).to.equal(201);
  });
  after(() => platform?.stop());

  async function send(method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string> } = {}) {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: basic(admin), 'content-type': 'application/json', ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { detail: unknown } };
  }

  it('a path parameter with malformed percent-encoding is a 422 about the path', async () => {
    for (const path of ['/api/v1/projects/%/repository', '/api/v1/instances/%E0%A4%A/action']) {
      const res = await send(path.endsWith('repository') ? 'PUT' : 'POST', path, { body: '{"git_repo":"x"}' });
      expect(res.status, path).to.equal(422);
      expect(res.body.detail).to.deep.equal([{ loc: ['path'], msg: 'the path is not valid percent-encoding', type: 'value_error.path_encoding' }]);
    }
  });

  it('the same for an internal route, whose path is checked after the service token', async () => {
    const { serviceToken } = resolvePlatformSecrets(platform.config);
    const res = await send('POST', '/internal/instances/%/action', { body: '{"action":"start"}', headers: { authorization: `Bearer ${serviceToken}`, 'x-forja-actor': userIdFor(admin) } });
    expect(res.status).to.equal(422);
  });

  it('a body that does not inflate as its Content-Encoding says is a 422 about the body', async () => {
    for (const encoding of ['br', 'GZIP', 'deflate']) {
      const res = await send('POST', '/api/v1/projects', { body: '{"name":"A"}', headers: { 'content-encoding': encoding } });
      expect(res.status, encoding).to.equal(422);
      expect(res.body.detail).to.deep.equal([{ loc: ['body'], msg: 'the body could not be decoded as its Content-Encoding says', type: 'value_error.content_encoding' }]);
    }
  });

  it('a lone surrogate (JSON "\\ud800") in a name is a 422 naming the field, not a refused append', async () => {
    for (const [path, body, field] of [
      ['/api/v1/projects', '{"name":"\\ud800several"}', 'name'],
      ['/api/v1/instances', '{"name":"dev","project":"found-target","erp_version":"18.0","branch":"x\\udfff"}', 'branch'],
      ['/api/v1/instances', '{"name":"\\ud83d","project":"found-target","erp_version":"18.0"}', 'name'],
    ] as const) {
      const res = await send('POST', path, { body });
      expect(res.status, body).to.equal(422);
      expect((res.body.detail as Array<{ loc: unknown[] }>)[0]!.loc, body).to.deep.equal(['body', field]);
    }
    // A surrogate pair is a character like any other.
    expect((await send('POST', '/api/v1/projects', { body: '{"name":"Found \\ud83d\\ude00"}' })).status).to.equal(201);
  });

  it('many changes to one project at once answer 200 or 409 with Retry-After, never 500', async () => {
    const answers = await Promise.all(Array.from({ length: 24 }, () => send('POST', '/api/v1/projects/found-target/webhook/rotate')));
    for (const res of answers) {
      expect(res.status).to.be.oneOf([200, 409]);
      if (res.status === 409) expect(res.retryAfter).to.equal('1');
    }
  });
});
