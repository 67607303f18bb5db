import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, textOf, type WebSession } from '#test/support/webSession.ts';
import { PASSWORD } from '#test/support/platform.ts';

/**
 * The attack of issue 10, item 3: a token with as many characters as the session's but more bytes
 * (32 `é`, 64 bytes, against 32 ASCII characters) made `timingSafeEqual` throw. In a multipart
 * upload it threw inside busboy's field listener and took the whole process down; in a plain form
 * it was a 500, anonymously on the sign-in form.
 */
const MULTIBYTE_TOKEN = 'é'.repeat(32);

describe('web: a CSRF token of multi-byte characters (issue 10, item 3)', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let developer: WebSession;

  const uploads = () => {
    const dir = join(platform.config.FORJA_DATA_DIR, 'uploads');
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  const health = async () => (await fetch(`${platform.web}/health`, { signal: AbortSignal.timeout(5_000) })).status;

  before(async () => {
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
  });
  after(() => platform?.stop());

  it('has the same number of characters as a real token and more bytes', async () => {
    const token = await developer.csrfToken();
    expect(MULTIBYTE_TOKEN.length).to.equal(token.length);
    expect(Buffer.byteLength(MULTIBYTE_TOKEN)).to.be.greaterThan(Buffer.byteLength(token));
  });

  it('refuses it with 403 as the first field of a multipart upload, keeps nothing, and the process still answers', async () => {
    const before = uploads();
    const form = new FormData();
    form.append('_csrf', MULTIBYTE_TOKEN);
    form.append('name', 'Crash');
    form.append('project', 'Crash Co');
    form.append('erp_version', '17.0');
    form.append('dump', new Blob(['SELECT 1;\n']), 'a.sql');
    const res = await fetch(`${platform.web}/instances/upload`, {
      method: 'POST',
      body: form,
      headers: { cookie: `${SESSION_COOKIE}=${developer.cookie}` },
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    });
    expect(res.status).to.equal(403);
    expect(textOf(await res.text())).to.include('This form has expired or did not come from Forja.');
    expect(uploads()).to.deep.equal(before);
    expect(await health()).to.equal(200);
    expect((await developer.get('/projects')).status).to.equal(200);
  });

  it('refuses it with 403, not 500, on the anonymous sign-in form, and signs nobody in', async () => {
    const visitor = platform.visitor();
    await visitor.csrfToken();
    const res = await visitor.post('/login', { email: USERS.developer, password: PASSWORD }, { csrf: MULTIBYTE_TOKEN });
    expect(res.status).to.equal(403);
    expect(textOf(res.html)).to.include('This form has expired or did not come from Forja.');
    expect((await visitor.get('/')).status).to.equal(303);
  });

  it('refuses it with 403 in the X-CSRF-Token header too', async () => {
    const res = await developer.post('/projects', { name: 'Forged Multibyte' }, { csrf: false, headers: { 'x-csrf-token': MULTIBYTE_TOKEN, 'hx-request': 'true' } });
    expect(res.status).to.equal(403);
    expect(await platform.projectNames('Forged Multibyte')).to.deep.equal([]);
    expect(await health()).to.equal(200);
  });
});
