import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { findUserByEmail } from '#projections/users/users.ts';
import { oidcSettings, startIdentityProvider, type TestIdentityProvider } from '#test/support/oidcProvider.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

/** A port nothing listens on: bound once, then released. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('web: signing in through the identity provider', function () {
  this.timeout(60_000);
  let idp: TestIdentityProvider;
  let platform: WebPlatform;

  before(async () => {
    idp = await startIdentityProvider();
    platform = await startWebPlatform(oidcSettings(idp));
    await idp.registerClient(`${platform.web}/auth/idp/callback`);
    idp.accounts.set('newcomer', { email: 'newcomer@example.com' });
    idp.accounts.set('dev', { email: 'Dev@EXAMPLE.com' });
    idp.accounts.set('gone', { email: USERS.deactivated });
    idp.accounts.set('outsider', { email: 'someone@foreign.org' });
    idp.accounts.set('unverified', { email: 'unverified@example.com', emailVerified: false });
    idp.accounts.set('thin', { email: 'thin@example.com', emailOnlyInUserinfo: true });
  });
  after(async () => {
    await platform?.stop();
    await idp?.stop();
  });

  const user = (email: string) => findUserByEmail(platform.infra.db.withSchema('read_model'), email);
  const isSignedIn = async (visitor: WebSession) => (await visitor.get('/projects')).status === 200;

  /** Starts at Forja, signs in at the provider as `login`, and returns the URL the provider sends the browser back to. */
  async function throughProvider(visitor: WebSession, login: string, options: { next?: string; cancel?: boolean } = {}): Promise<URL> {
    const start = await visitor.get(`/auth/idp/login?next=${encodeURIComponent(options.next ?? '/projects')}`);
    expect(start.status).to.equal(303);
    return idp.signIn(start.location!, login, options);
  }
  const back = (visitor: WebSession, callback: URL) => visitor.get(`${callback.pathname}${callback.search}`);

  it('sends the browser to the provider with PKCE, state, nonce and the callback on the host it used', async () => {
    const res = await platform.visitor().get('/auth/idp/login?next=%2Fprojects');
    expect(res.status).to.equal(303);
    const to = new URL(res.location!);
    expect(to.origin).to.equal(idp.issuer);
    expect(Object.fromEntries(to.searchParams)).to.include({ client_id: 'forja', response_type: 'code', scope: 'openid email profile', code_challenge_method: 'S256', redirect_uri: `${platform.web}/auth/idp/callback` });
    for (const param of ['state', 'nonce', 'code_challenge']) expect(to.searchParams.get(param)).to.have.length.above(20);
  });

  it('registers a newcomer at an allowed domain as a viewer and signs them in', async () => {
    const visitor = platform.visitor();
    const res = await back(visitor, await throughProvider(visitor, 'newcomer'));
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/projects');
    const page = await visitor.get('/projects');
    expect(page.status).to.equal(200);
    expect(textOf(page.html)).to.include('newcomer@example.com viewer');
    expect(await user('newcomer@example.com')).to.include({ role: 'viewer', active: true });
  });

  it('keeps the role of a known user, matching the domain in any case', async () => {
    const visitor = platform.visitor();
    const res = await back(visitor, await throughProvider(visitor, 'dev', { next: '/projects?q=x' }));
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/projects?q=x');
    expect(textOf((await visitor.get('/projects')).html)).to.include(`${USERS.developer} developer`);
    expect(await user(USERS.developer)).to.include({ role: 'developer' });
  });

  it('goes to / after signing in when next leaves Forja', async () => {
    const visitor = platform.visitor();
    const res = await back(visitor, await throughProvider(visitor, 'newcomer', { next: '//evil.example/' }));
    expect(res.location).to.equal('/');
  });

  it('refuses a wrong state with 400, signs nobody in, and spends the real state too', async () => {
    const visitor = platform.visitor();
    const callback = await throughProvider(visitor, 'newcomer');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value');
    const res = await back(visitor, forged);
    expect(res.status).to.equal(400);
    expect(textOf(res.html)).to.include('The sign-in could not be verified');
    expect(await isSignedIn(visitor)).to.equal(false);
    expect((await back(visitor, callback)).status).to.equal(400);
  });

  it('refuses a callback without a code with 400', async () => {
    const visitor = platform.visitor();
    const callback = await throughProvider(visitor, 'newcomer');
    callback.searchParams.delete('code');
    expect((await back(visitor, callback)).status).to.equal(400);
    expect(await isSignedIn(visitor)).to.equal(false);
  });

  it('refuses a callback in a browser that never started the sign-in', async () => {
    const callback = await throughProvider(platform.visitor(), 'newcomer');
    const stranger = platform.visitor();
    expect((await back(stranger, callback)).status).to.equal(400);
    expect(await isSignedIn(stranger)).to.equal(false);
  });

  it('cannot replay a callback once it signed someone in', async () => {
    const visitor = platform.visitor();
    const callback = await throughProvider(visitor, 'newcomer');
    expect((await back(visitor, callback)).status).to.equal(303);
    expect((await back(visitor, callback)).status).to.equal(400);
  });

  it('refuses a foreign domain with 403 naming it, and registers nobody', async () => {
    const visitor = platform.visitor();
    const res = await back(visitor, await throughProvider(visitor, 'outsider'));
    expect(res.status).to.equal(403);
    expect(textOf(res.html)).to.include('Accounts at foreign.org may not sign in to Forja.');
    expect(await user('someone@foreign.org')).to.equal(undefined);
    expect(await isSignedIn(visitor)).to.equal(false);
  });

  it('refuses a deactivated user with 403 and says so', async () => {
    const visitor = platform.visitor();
    const res = await back(visitor, await throughProvider(visitor, 'gone'));
    expect(res.status).to.equal(403);
    expect(textOf(res.html)).to.include('This account is deactivated.');
    expect(await isSignedIn(visitor)).to.equal(false);
  });

  it('refuses an e-mail the provider has not verified', async () => {
    const visitor = platform.visitor();
    const res = await back(visitor, await throughProvider(visitor, 'unverified'));
    expect(res.status).to.equal(403);
    expect(textOf(res.html)).to.include('has not verified unverified@example.com');
    expect(await user('unverified@example.com')).to.equal(undefined);
  });

  it('reads the e-mail from userinfo when the ID token carries none', async () => {
    const visitor = platform.visitor();
    expect((await back(visitor, await throughProvider(visitor, 'thin'))).status).to.equal(303);
    expect(await user('thin@example.com')).to.include({ role: 'viewer' });
  });

  it('explains a sign-in cancelled at the provider (error=access_denied)', async () => {
    const visitor = platform.visitor();
    const callback = await throughProvider(visitor, 'newcomer', { cancel: true });
    expect(callback.searchParams.get('error')).to.equal('access_denied');
    const res = await back(visitor, callback);
    expect(res.status).to.equal(401);
    expect(textOf(res.html)).to.include('The sign-in was cancelled, or the identity provider refused it.');
    expect(await isSignedIn(visitor)).to.equal(false);
  });

  describe('misconfigured or unreachable', () => {
    let other: WebPlatform | undefined;
    afterEach(async () => {
      await other?.stop();
      other = undefined;
    });

    it('answers 503 with a clear page when the provider cannot be reached, and keeps serving', async () => {
      other = await startWebPlatform(oidcSettings(idp, { FORJA_OIDC_ISSUER: `http://127.0.0.1:${await deadPort()}` }));
      const visitor = other.visitor();
      const res = await visitor.get('/auth/idp/login');
      expect(res.status).to.equal(503);
      expect(textOf(res.html)).to.include('The identity provider cannot be reached right now.');
      expect((await visitor.get('/login')).status).to.equal(200);
    });

    it('refuses everyone, telling the administrator what to set, while FORJA_OIDC_ALLOWED_DOMAINS is unset', async () => {
      const { FORJA_OIDC_ALLOWED_DOMAINS: _unset, ...settings } = oidcSettings(idp);
      other = await startWebPlatform(settings);
      const res = await other.visitor().get('/auth/idp/login');
      expect(res.status).to.equal(403);
      expect(textOf(res.html)).to.include('An administrator must set FORJA_OIDC_ALLOWED_DOMAINS');
    });
  });
});
