import { expect } from 'chai';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { keepCaughtMail } from '#shared/mail/caughtMail.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import type { WebSession } from '#test/support/webSession.ts';

/**
 * Issue 24, finding 3: an HTML attachment that loads a second attachment as script ran on web's
 * origin when an admin opened it in the mail catcher, read the CSRF token and made an SSH key.
 * The HTML body tries the same from the message itself.
 */
const ATTACK = `<script>
  fetch('/ssh-keys').then((r) => r.text()).then((page) => {
    const token = /name="_csrf" value="([^"]+)"/.exec(page)[1];
    return fetch('/ssh-keys', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_csrf=' + token + '&name=pwned&generate=1' });
  });
  top.document.title = 'pwned';
</script><p>Your invoice is attached.</p><img src="x" onerror="top.document.title='pwned'">`;

async function message(subject: string, html: string): Promise<Buffer> {
  return new MailComposer({
    from: 'erp@acme.example',
    to: 'customer@example.com',
    subject,
    text: 'Your invoice is attached.',
    html,
    attachments: [
      { filename: 'invoice.html', content: '<script src="payload.js"></script>', contentType: 'text/html' },
      { filename: 'payload.js', content: "top.document.title = 'pwned'", contentType: 'application/javascript' },
    ],
  })
    .compile()
    .build();
}

describe('web: each instance\'s caught mail, on pages of its own (issue 24)', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let viewer: WebSession;
  let acme: string;
  let other: string;
  let attackId: string;

  before(async () => {
    platform = await startWebPlatform();
    viewer = await platform.signedIn('viewer');
    const developer = await platform.signedIn('developer');
    const slugOf = async (name: string) => (await developer.post('/instances', { name, project: 'Mail', erp_version: '17.0' })).location!.replace('/instances/', '');
    [acme, other] = [await slugOf('Acme staging'), await slugOf('Other customer')];
    const blobs = createFsBlobStore(platform.config.FORJA_DATA_DIR);
    const at = new Date();
    attackId = (await keepCaughtMail(blobs, acme, await message('Invoice INV/0001', ATTACK), { receivedAt: at.toISOString(), from: 'erp@acme.example', to: ['customer@example.com'], subject: 'Invoice INV/0001', attachments: 2 }, at)).id;
    await keepCaughtMail(blobs, other, await message('Other customer\'s reset link', '<p>reset</p>'), { receivedAt: at.toISOString(), from: 'erp@other.example', to: ['boss@other.example'], subject: 'Other customer\'s reset link', attachments: 2 }, at);
  });
  after(() => platform?.stop());

  it('lists an instance\'s mail and none of another instance\'s; unknown messages and instances are 404, visitors sign in', async () => {
    const list = await viewer.get(`/instances/${acme}/mail`);
    expect(list.status).to.equal(200);
    expect(list.html).to.include('Invoice INV/0001');
    expect(list.html).not.to.include('reset link');
    expect((await viewer.get(`/instances/${other}/mail`)).html).to.include('reset link');
    expect((await viewer.get(`/instances/${acme}/mail/20260101T000000000Z-00000000`)).status).to.equal(404);
    expect((await viewer.get(`/instances/${acme}/mail/not-an-id`)).status).to.equal(404);
    expect((await viewer.get(`/instances/no-such-instance/mail`)).status).to.equal(404);
    expect((await viewer.get(`/instances/${acme}/mail/${attackId}/attachments/7`)).status).to.equal(404);
    expect((await platform.visitor().get(`/instances/${acme}/mail`)).status).to.equal(303);
  });

  it('serves raw messages and attachments only as sandboxed downloads of no type a browser renders', async () => {
    for (const path of [`/instances/${acme}/mail/${attackId}/raw`, `/instances/${acme}/mail/${attackId}/attachments/0`, `/instances/${acme}/mail/${attackId}/attachments/1`]) {
      const res = await viewer.get(path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-disposition'), path).to.match(/^attachment; filename="/);
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('content-security-policy'), path).to.match(/^sandbox/);
    }
    expect((await viewer.get(`/instances/${acme}/mail/${attackId}/attachments/0`)).headers.get('content-type')).to.equal('application/octet-stream');
    expect((await viewer.get(`/instances/${acme}/mail/${attackId}/raw`)).html).to.include('payload.js');
  });

  it('shows the message to an admin in Chromium without running a line of its script on web\'s origin', async () => {
    const browser = await launchChromium();
    try {
      const page = await (await newContext(browser, { acceptDownloads: true })).newPage();
      await signInWithForm(page, platform.web, USERS.admin, PASSWORD);
      const errors: string[] = [];
      page.on('console', (entry) => void (entry.type() === 'error' && errors.push(entry.text())));
      await page.goto(`${platform.web}/instances/${acme}/mail`);
      await page.getByRole('link', { name: 'Invoice INV/0001' }).click();
      await page.getByRole('heading', { name: 'Invoice INV/0001' }).waitFor();
      const frame = page.frameLocator('iframe.mail-html');
      await frame.getByText('Your invoice is attached.').waitFor();
      // The attachment opened as a person would: a download, never a page of web's.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'invoice.html' }).click()]);
      expect(download.suggestedFilename()).to.equal('invoice.html');
      await page.waitForTimeout(500);
      await screenshot(page, 'instance-mail-message');
      expect(await page.title()).to.match(/^Invoice INV\/0001/);
      // Blocked by the frame's sandbox (no allow-scripts), as the console says.
      expect(errors.join('\n')).to.match(/Blocked script execution|sandboxed/);
    } finally {
      await browser.close();
    }
    const admin = await platform.signedIn('admin');
    expect((await admin.get('/ssh-keys')).html).not.to.include('pwned');
  });
});
