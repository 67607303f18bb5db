import { createServer } from 'node:net';
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import type { Infrastructure } from '#shared/platform/infrastructure.ts';
import { launchChromium, newContext, screenshot } from '#test/support/browser.ts';
import { freePort } from '#test/support/freePort.ts';
import { maildevSubjectsWith } from '#test/support/maildev.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { readBytes, upgradeRequest } from '#test/support/rawUpgrade.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE } from '#test/support/webSession.ts';

interface CaughtMail {
  id: string;
  subject: string;
  to: Array<{ address: string }>;
}

describe('the mail catcher (maildev, started by Forja) behind web at /mails', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let smtpPort: number;

  before(async () => {
    smtpPort = await freePort();
    platform = await startWebPlatform({}, [startMailCatcherProcess], { FORJA_MAILCATCHER_SMTP_PORT: String(smtpPort) });
  });
  after(() => platform?.stop());

  const sendToCatcher = (subject: string) =>
    nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true }).sendMail({ from: 'erp@example.com', to: 'customer@example.com', subject, text: 'hello' });

  it('shows a mail sent to its SMTP port in its API and its live WebSocket, to administrators alone', async () => {
    const subject = `Caught ${Date.now()}`;
    await sendToCatcher(subject);
    await maildevSubjectsWith(platform.config.FORJA_DATA_DIR, subject);
    const admin = await platform.signedIn('admin');
    const page = await admin.get('/mails/');
    expect(page.status).to.equal(200);
    expect(page.html).to.include('MailDev');
    const list = JSON.parse((await admin.get('/mails/email')).html) as CaughtMail[];
    expect(list.map((mail) => mail.subject)).to.include(subject);
    for (const role of ['viewer', 'developer'] as const) expect((await (await platform.signedIn(role)).get('/mails/email')).status, role).to.equal(403);
    // maildev's UI follows new mail over socket.io: its engine.io handshake answers through the proxy.
    const ws = await upgradeRequest(`${platform.web}/mails/socket.io/?EIO=4&transport=websocket`, { cookie: `${SESSION_COOKIE}=${admin.cookie}` });
    expect(ws.status).to.equal(101);
    const open = (await readBytes(ws.socket!, 10)).subarray(2).toString();
    expect(open).to.match(/^0\{"sid"/);
    ws.socket!.destroy();
  });

  it('sends an anonymous visitor to sign in', async () => {
    const res = await platform.visitor().get('/mails/');
    expect(res.status).to.equal(303);
    expect(res.location).to.equal(`/login?next=${encodeURIComponent('/mails/')}`);
  });

  it('lists the caught mail in its web UI in Chromium', async () => {
    const subject = `Seen in Chromium ${Date.now()}`;
    await sendToCatcher(subject);
    const browser = await launchChromium();
    try {
      const page = await (await newContext(browser)).newPage();
      await page.goto(`${platform.web}/mails/`);
      // The sign-in form takes the user back to the catcher (signInWithForm waits for a Forja page instead).
      await page.getByLabel('E-mail').fill(USERS.admin);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${platform.web}/mails/`);
      const scriptErrors: string[] = [];
      page.on('pageerror', (error) => scriptErrors.push(error.message));
      page.on('console', (message) => void (message.type() === 'error' && scriptErrors.push(message.text())));
      // Reload with the listeners on: the UI must run under the tool's own content security policy.
      await page.reload();
      await page.getByText(subject).first().waitFor();
      expect(await page.title()).to.match(/^MailDev/);
      expect(scriptErrors).to.deep.equal([]);
      await screenshot(page, 'mail-catcher');
    } finally {
      await browser.close();
    }
  });

  it('runs none of a sender\'s script on web\'s origin when an admin opens the message and its attachments in Chromium (issue 24, finding 3)', async () => {
    // The audit's attack: the message's HTML and an HTML attachment load another attachment as a
    // script, which read the CSRF token and made an SSH key as the admin.
    const payload = "fetch('/ssh-keys').then((r) => r.text()).then((page) => fetch('/ssh-keys', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_csrf=' + /name=\"_csrf\" value=\"([^\"]+)\"/.exec(page)[1] + '&mode=generate&name=pwned&key_type=ed25519' })); top.document.title = 'pwned';";
    const subject = `Attack ${Date.now()}`;
    await nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true }).sendMail({
      from: 'erp@example.com',
      to: 'admin@example.com',
      subject,
      html: '<p>Your invoice</p><script src="attachment/payload.js"></script>',
      attachments: [
        { filename: 'invoice.html', content: '<script src="payload.js"></script>', contentType: 'text/html' },
        { filename: 'payload.js', content: payload, contentType: 'application/javascript' },
      ],
    });
    await maildevSubjectsWith(platform.config.FORJA_DATA_DIR, subject);
    const admin = await platform.signedIn('admin');
    const caught = (JSON.parse((await admin.get('/mails/email')).html) as Array<CaughtMail & { attachments: Array<{ generatedFileName: string; fileName: string }> }>).find((mail) => mail.subject === subject)!;
    const { id } = caught;
    const invoice = caught.attachments.find((attachment) => attachment.fileName === 'invoice.html')!.generatedFileName;
    const browser = await launchChromium();
    try {
      const page = await (await newContext(browser, { acceptDownloads: true })).newPage();
      await page.goto(`${platform.web}/mails/`);
      await page.getByLabel('E-mail').fill(USERS.admin);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${platform.web}/mails/`);
      await page.getByText(subject).first().click();
      await page.frameLocator('iframe').first().getByText('Your invoice').waitFor();
      await page.waitForTimeout(1000);
      expect(await page.title()).to.match(/^MailDev/);
      // Opened by address, the attachment is a download and the message's HTML a sandboxed page.
      const downloading = page.waitForEvent('download');
      await page.goto(`${platform.web}/mails/email/${id}/attachment/${invoice}`).catch(() => undefined);
      await downloading;
      await page.goto(`${platform.web}/mails/email/${id}/html`);
      await page.waitForTimeout(1000);
      expect(await page.title()).not.to.equal('pwned');
    } finally {
      await browser.close();
    }
    expect((await admin.get('/ssh-keys')).html, 'no key was made by the sender\'s script').not.to.include('pwned');
  });

  it('refuses to start on a port already taken, naming it and the settings', async () => {
    const holder = createServer();
    const taken = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      const config = loadConfig({ FORJA_MAILCATCHER_SMTP_PORT: String(taken) });
      const error = await startMailCatcherProcess({} as Infrastructure, config, silentLogger).then(() => undefined, (failure: Error) => failure);
      expect(error?.message).to.equal(
        `mail catcher: port ${taken} on 127.0.0.1 is already in use: stop what holds it or set FORJA_MAILCATCHER_SMTP_PORT (or FORJA_MAILCATCHER=false)`,
      );
    } finally {
      holder.close();
    }
  });

  it('starts nothing when FORJA_MAILCATCHER is false', async () => {
    const proc = await startMailCatcherProcess({} as Infrastructure, loadConfig({ FORJA_MAILCATCHER: 'false' }), silentLogger);
    expect(proc.describe()).to.deep.equal(['off (FORJA_MAILCATCHER=false)']);
    expect(proc.url).to.equal(undefined);
    await proc.stop();
  });
});
