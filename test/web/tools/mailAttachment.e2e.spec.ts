import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { toolAuthorization } from '#shared/local/toolSecrets.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { launchChromium, newContext } from '#test/support/browser.ts';
import { freePort } from '#test/support/freePort.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { openTool } from '#test/support/toolSession.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf } from '#test/support/webSession.ts';

/**
 * Security issue 24, finding 3: a mail's HTML attachment loads a second attachment as script; an
 * admin opening it must not run that script on web's origin (it read the CSRF token and added an SSH key).
 */
describe('a mail attachment opened by an admin (security issue 24)', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let smtpPort: number;
  let catcherPort: number;

  before(async () => {
    smtpPort = await freePort();
    catcherPort = await freePort();
    platform = await startWebPlatform({}, [startMailCatcherProcess], { FORJA_MAILCATCHER_SMTP_PORT: String(smtpPort), FORJA_MAILCATCHER_WEB_PORT: String(catcherPort) });
  });
  after(() => platform?.stop());

  const keyNames = async () => textOf((await (await platform.signedIn('admin')).get('/ssh-keys')).html);

  it('runs no script of it on web\'s origin and adds no SSH key', async () => {
    const name = `pwned-${Date.now()}`;
    const script = `document.title = 'ran on ' + location.origin;
fetch('/ssh-keys').then((r) => r.text()).then((html) => {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)[1];
  return fetch('/ssh-keys', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_csrf=' + encodeURIComponent(token) + '&mode=generate&key_type=ed25519&name=${name}' });
}).then(() => { document.title = 'done on ' + location.origin; });`;
    const send = (subject: string, attachment: { filename: string; contentType: string; content: string }) =>
      nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true }).sendMail({ from: 'erp@example.com', to: 'admin@example.com', subject, text: 'see attached', attachments: [attachment] });
    // maildev serves an attachment under a name it generates: the attacker sends the script first and
    // points the page at its name (the catcher's API lists it; an ERP can read it the same way).
    await send(`Script ${name}`, { filename: 'evil.js', contentType: 'application/javascript', content: script });
    const auth = toolAuthorization(resolvePlatformSecrets(platform.config).masterKey, 'mailcatcher');
    const listed = (await (await fetch(`http://127.0.0.1:${catcherPort}/mails/email`, { headers: { authorization: auth } })).json()) as Array<{ id: string; subject: string; attachments: Array<{ generatedFileName: string }> }>;
    const scriptMail = listed.find((one) => one.subject === `Script ${name}`)!;
    const scriptPath = `../../${scriptMail.id}/attachment/${scriptMail.attachments[0]!.generatedFileName}`;
    await send(`Invoice ${name}`, { filename: 'invoice.html', contentType: 'text/html', content: `<!doctype html><title>invoice</title><script src="${scriptPath}"></script><p>invoice</p>` });
    let id_ = '';
    let pageName = '';
    const browser = await launchChromium();
    try {
      const page = await (await newContext(browser)).newPage();
      await page.goto(`${platform.web}/login`);
      await page.getByLabel('E-mail').fill(USERS.admin);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => !url.pathname.startsWith('/login'));
      // The catcher's list as the admin's browser gets it from web's link (JSON: the mail's id).
      await page.goto(`${platform.web}/mails/email`);
      const list = JSON.parse(await page.locator('body').innerText()) as Array<{ id: string; subject: string; attachments?: Array<{ generatedFileName: string }> }>;
      const caught = list.find((one) => one.subject === `Invoice ${name}`)!;
      const id = caught.id;
      pageName = caught.attachments![0]!.generatedFileName;
      const origin = new URL(page.url()).origin;
      // The link the catcher's UI shows, as web's old path and as the tool host's own.
      const shown: Array<{ url: string; title: string }> = [];
      for (const url of [`${platform.web}/mails/email/${id}/attachment/${pageName}`, `${origin}/mails/email/${id}/attachment/${pageName}`]) {
        await page.goto(url).catch(() => undefined);
        await page.waitForLoadState('load').catch(() => undefined);
        shown.push({ url: page.url(), title: await page.title().catch(() => '') });
      }
      // Had the script run on web's origin, its key would show within a few seconds.
      for (let tries = 0; tries < 10; tries += 1) {
        expect(await keyNames(), 'no key was added').to.not.include(name);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      for (const { url, title } of shown) {
        expect(url, 'no attachment is shown on web\'s origin').to.not.match(new RegExp(`^${platform.web}/mails/email/`));
        expect(title, 'the script did not run on web\'s origin').to.not.include(platform.web);
      }
      id_ = id;
    } finally {
      await browser.close();
    }
    const id = id_;
    const mail = await openTool(await platform.signedIn('admin'), '/mails/');
    const attachment = await mail.get(`/mails/email/${id}/attachment/${pageName}`);
    expect(attachment.headers['content-disposition']).to.match(/^attachment/);
    expect(attachment.headers['x-content-type-options']).to.equal('nosniff');
    expect(String(attachment.headers['content-security-policy'])).to.match(/(^|; )sandbox(;|$)/);
    for (const path of [`/mails/email/${id}/download`, `/mails/email/${id}/source`, `/mails/email/${id}/html`]) {
      expect(String((await mail.get(path)).headers['content-security-policy']), path).to.match(/(^|; )sandbox(;|$)/);
    }
  });
});
