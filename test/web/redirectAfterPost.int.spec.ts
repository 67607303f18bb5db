import { expect } from 'chai';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, textOf } from '#test/support/webSession.ts';

describe('web: the page after a POST', function () {
  this.timeout(60_000);
  let platform: WebPlatform;

  before(async () => {
    platform = await startWebPlatform();
  });
  after(() => platform?.stop());

  it('shows the flash even when the browser follows the 303 as soon as its headers arrive', async () => {
    const developer = await platform.signedIn('developer');
    const cookie = `${SESSION_COOKIE}=${developer.cookie}`;
    const token = await developer.csrfToken();
    for (let attempt = 1; attempt <= 10; attempt++) {
      const name = `Quick Follow ${attempt}`;
      // fetch resolves on the headers; the body (and whatever the server still does before ending it) is not awaited.
      const posted = await fetch(`${platform.web}/projects`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, name }).toString(),
        redirect: 'manual',
      });
      expect(posted.status).to.equal(303);
      const page = await fetch(`${platform.web}${posted.headers.get('location')}`, { headers: { cookie } });
      expect(textOf(await page.text()), `attempt ${attempt}`).to.include(`Project ${name} created.`);
      await posted.arrayBuffer();
    }
  });
});
