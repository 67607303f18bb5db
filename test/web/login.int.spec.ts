import { expect } from 'chai';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { sessionCookieOf, textOf, webSession } from '#test/support/webSession.ts';

describe('web: signing in and out', function () {
  this.timeout(60_000);
  let platform: WebPlatform;

  before(async () => {
    platform = await startWebPlatform();
  });
  after(() => platform?.stop());

  /** Whether a session is signed in: the project list renders instead of sending it to /login. */
  const isSignedIn = async (cookie: string | undefined) => (await webSession(platform.web, cookie).get('/')).status === 200;

  it('renders the form', async () => {
    const res = await platform.visitor().get('/login?next=%2Fprojects');
    expect(res.status).to.equal(200);
    expect(res.html).to.match(/<form method="post" action="\/login">/);
    expect(res.html).to.match(/<input type="email" name="email"/);
    expect(res.html).to.match(/<input type="password" name="password"/);
    expect(res.html).to.include('<input type="hidden" name="next" value="/projects">');
    expect(res.html).to.match(/<input type="hidden" name="_csrf" value="[\w-]{20,}">/);
  });

  it('sends a visitor of a page to the form, remembering where they were going', async () => {
    const res = await platform.visitor().get('/projects?q=acme');
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/login?next=%2Fprojects%3Fq%3Dacme');
  });

  it('refuses a wrong password with 401, keeps the e-mail, and leaves the visitor signed out', async () => {
    const visitor = platform.visitor();
    const res = await visitor.login(USERS.developer, 'not the password');
    expect(res.status).to.equal(401);
    expect(textOf(res.html)).to.include('Wrong e-mail or password.');
    expect(res.html).to.include(`value="${USERS.developer}"`);
    expect(await isSignedIn(visitor.cookie)).to.equal(false);
  });

  it('answers an unknown e-mail exactly like a wrong password', async () => {
    const res = await platform.visitor().login('nobody@example.com');
    expect(res.status).to.equal(401);
    expect(textOf(res.html)).to.include('Wrong e-mail or password.');
  });

  it('refuses a deactivated account with 403 and says why', async () => {
    const visitor = platform.visitor();
    const res = await visitor.login(USERS.deactivated);
    expect(res.status).to.equal(403);
    expect(textOf(res.html)).to.include('This account is deactivated. Ask an administrator to reactivate it.');
    expect(await isSignedIn(visitor.cookie)).to.equal(false);
  });

  it('asks for both fields with 422', async () => {
    const res = await platform.visitor().login(USERS.developer, '');
    expect(res.status).to.equal(422);
    expect(textOf(res.html)).to.include('Enter your e-mail and password.');
  });

  it('signs in with 303 to a local `next`, and shows who is signed in', async () => {
    const visitor = platform.visitor();
    const res = await visitor.login(USERS.developer, undefined, '/projects?q=x');
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/projects?q=x');
    const page = await visitor.get('/projects');
    expect(page.status).to.equal(200);
    expect(textOf(page.html)).to.include(`Signed in as ${USERS.developer}.`);
    expect(textOf(page.html)).to.include(`${USERS.developer} developer`);
  });

  for (const next of ['//evil.example', 'https://evil.example', '/\\evil.example', 'javascript:alert(1)', '']) {
    it(`goes to / instead of next=${JSON.stringify(next)}`, async () => {
      const res = await platform.visitor().login(USERS.viewer, undefined, next);
      expect(res.status).to.equal(303);
      expect(res.location).to.equal('/');
    });
  }

  it('sends the signed-in away from the form, to a local `next` only', async () => {
    const session = await platform.signedIn('viewer');
    expect((await session.get('/login?next=%2Fprojects')).location).to.equal('/projects');
    expect((await session.get('/login?next=%2F%2Fevil.example')).location).to.equal('/');
  });

  it('gives a new session id at sign-in, so a planted one is worth nothing (no fixation)', async () => {
    const visitor = platform.visitor();
    await visitor.csrfToken();
    const planted = visitor.cookie;
    expect(planted).to.be.a('string');
    await visitor.login(USERS.admin);
    expect(visitor.cookie).to.be.a('string').and.not.equal(planted);
    expect(await isSignedIn(visitor.cookie)).to.equal(true);
    expect(await isSignedIn(planted)).to.equal(false);
  });

  it('destroys the session at sign-out (a POST with the token): the old cookie no longer works', async () => {
    const session = await platform.signedIn('developer');
    const cookie = session.cookie;
    expect(await isSignedIn(cookie)).to.equal(true);
    const res = await session.post('/logout', {});
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/login');
    expect(sessionCookieOf(res)?.attributes.get('expires')).to.match(/1970/);
    expect(session.cookie).to.equal(undefined);
    expect(await isSignedIn(cookie)).to.equal(false);
  });

  describe('sign-out cannot be forged (issue 10, item 12)', () => {
    it('GET /logout, as a link or an image on another site sends it, signs nobody out: it shows the form', async () => {
      const session = await platform.signedIn('developer');
      const res = await session.get('/logout');
      expect(res.status).to.equal(200);
      expect(textOf(res.html)).to.include('Sign out of Forja?');
      expect(res.html).to.match(/<form method="post" action="\/logout"[^>]*>\s*<input type="hidden" name="_csrf" value="[\w-]{20,}">/);
      expect(sessionCookieOf(res)?.attributes.get('expires') ?? '').to.not.match(/1970/);
      expect(await isSignedIn(session.cookie)).to.equal(true);
    });

    it('GET /logout sends a visitor who is not signed in to the form', async () => {
      const res = await platform.visitor().get('/logout');
      expect(res.status).to.equal(303);
      expect(res.location).to.equal('/login');
    });

    it('refuses a POST without the token, or with a wrong one, with 403 and keeps the session', async () => {
      const session = await platform.signedIn('developer');
      for (const csrf of [false, 'not-the-token'] as const) {
        const res = await session.post('/logout', {}, { csrf });
        expect(res.status, String(csrf)).to.equal(403);
        expect(textOf(res.html)).to.include('This form has expired or did not come from Forja.');
      }
      expect(await isSignedIn(session.cookie)).to.equal(true);
    });

    it('offers sign-out in the navigation as a form button carrying the token', async () => {
      const session = await platform.signedIn('viewer');
      const page = await session.get('/projects');
      expect(page.html).to.match(/<form method="post" action="\/logout" class="sign-out" hx-boost="false"><input type="hidden" name="_csrf" value="[\w-]{20,}"><button type="submit"[^>]*>Sign out<\/button><\/form>/);
      expect(page.html).to.not.include('href="/logout"');
    });
  });
});
