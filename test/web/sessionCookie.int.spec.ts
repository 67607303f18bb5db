import { expect } from 'chai';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { csrfFrom, sessionCookieOf, webSession, type WebResponse } from '#test/support/webSession.ts';

/** Signs in with the given request headers on every request, and returns the sign-in's answer. */
async function signInWith(platform: WebPlatform, headers: Record<string, string>): Promise<WebResponse> {
  const session = webSession(platform.web);
  const page = await session.get('/login', headers);
  return session.post('/login', { email: USERS.viewer, password: PASSWORD }, { csrf: csrfFrom(page.html), headers });
}

describe('web: the session cookie', function () {
  this.timeout(60_000);

  describe('served directly over HTTP', () => {
    let platform: WebPlatform;
    before(async () => {
      platform = await startWebPlatform();
    });
    after(() => platform?.stop());

    it('is httpOnly, SameSite=Lax, for the whole site, and not Secure on plain HTTP', async () => {
      const res = await signInWith(platform, {});
      expect(res.status).to.equal(303);
      const cookie = sessionCookieOf(res);
      expect(cookie?.attributes.has('httponly')).to.equal(true);
      expect(cookie?.attributes.get('samesite')).to.equal('Lax');
      expect(cookie?.attributes.get('path')).to.equal('/');
      expect(cookie?.attributes.has('secure')).to.equal(false);
    });

    it('ignores X-Forwarded-Proto when no proxy is trusted', async () => {
      const res = await signInWith(platform, { 'x-forwarded-proto': 'https' });
      expect(sessionCookieOf(res)?.attributes.has('secure')).to.equal(false);
    });
  });

  describe('behind a trusted TLS proxy (FORJA_TRUST_PROXY=1)', () => {
    let platform: WebPlatform;
    before(async () => {
      platform = await startWebPlatform({ FORJA_TRUST_PROXY: '1' });
    });
    after(() => platform?.stop());

    it('is Secure, httpOnly and SameSite=Lax when the proxy says the request came over https', async () => {
      const res = await signInWith(platform, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' });
      expect(res.status).to.equal(303);
      const cookie = sessionCookieOf(res);
      expect(cookie?.attributes.has('secure')).to.equal(true);
      expect(cookie?.attributes.has('httponly')).to.equal(true);
      expect(cookie?.attributes.get('samesite')).to.equal('Lax');
    });

    it('is not Secure when the proxy says the request came over plain http', async () => {
      const res = await signInWith(platform, { 'x-forwarded-proto': 'http' });
      expect(res.status).to.equal(303);
      expect(sessionCookieOf(res)?.attributes.has('secure')).to.equal(false);
    });
  });
});
