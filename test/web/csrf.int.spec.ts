import { expect } from 'chai';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

describe('web: CSRF tokens on every POST', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let developer: WebSession;

  before(async () => {
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
  });
  after(() => platform?.stop());

  const refusedAsForged = (html: string) => expect(textOf(html)).to.include('This form has expired or did not come from Forja.');

  it('refuses a POST without a token with 403, creating nothing', async () => {
    const res = await developer.post('/projects', { name: 'Forged Without Token' }, { csrf: false });
    expect(res.status).to.equal(403);
    refusedAsForged(res.html);
    expect(await platform.projectNames('Forged Without')).to.deep.equal([]);
  });

  it('refuses a wrong token, an empty one and another session’s token', async () => {
    const other = await platform.signedIn('developer');
    for (const csrf of ['not-the-token', '', await other.csrfToken()]) {
      const res = await developer.post('/projects', { name: 'Forged Wrong Token' }, { csrf });
      expect(res.status, `token ${JSON.stringify(csrf)}`).to.equal(403);
      refusedAsForged(res.html);
    }
    expect(await platform.projectNames('Forged Wrong')).to.deep.equal([]);
  });

  it('checks the token on the sign-in form too', async () => {
    const visitor = platform.visitor();
    await visitor.csrfToken();
    const res = await visitor.post('/login', { email: USERS.developer, password: PASSWORD }, { csrf: false });
    expect(res.status).to.equal(403);
    expect((await visitor.get('/')).status).to.equal(303);
  });

  it('accepts the token in the X-CSRF-Token header, as htmx sends it', async () => {
    const token = await developer.csrfToken();
    const res = await developer.post('/projects', { name: 'Sent By Htmx' }, { csrf: false, headers: { 'x-csrf-token': token, 'hx-request': 'true' } });
    expect(res.status).to.equal(303);
    expect(await platform.projectNames('Sent By Htmx')).to.deep.equal(['Sent By Htmx']);
  });

  it('accepts the form field from the page', async () => {
    const res = await developer.post('/projects', { name: 'Posted From The Form' });
    expect(res.status).to.equal(303);
  });
});
