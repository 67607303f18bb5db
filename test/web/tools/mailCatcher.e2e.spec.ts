import { createServer } from 'node:net';
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import type { Infrastructure } from '#shared/platform/infrastructure.ts';
import { launchChromium, newContext, screenshot } from '#test/support/browser.ts';
import { freePort } from '#test/support/freePort.ts';
import { maildevGet, maildevSubjectsWith } from '#test/support/maildev.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { readBytes } from '#test/support/rawUpgrade.ts';
import { openTool, toolUpgrade } from '#test/support/toolSession.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf } from '#test/support/webSession.ts';

interface CaughtMail {
  id: string;
  subject: string;
  to: Array<{ address: string }>;
}

describe('the mail catcher (maildev, started by Forja) on the tools origin at mail.<tools domain>/mails', function () {
  this.timeout(120_000);
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
    const admin = await openTool(await platform.signedIn('admin'), '/mails/');
    const page = await admin.get('/mails/');
    expect(page.status).to.equal(200);
    expect(page.body).to.include('MailDev');
    const list = JSON.parse((await admin.get('/mails/email')).body) as CaughtMail[];
    expect(list.map((mail) => mail.subject)).to.include(subject);
    for (const role of ['viewer', 'developer'] as const) expect((await (await platform.signedIn(role)).get('/mails/email')).status, role).to.equal(403);
    // maildev's UI follows new mail over socket.io: its engine.io handshake answers through the proxy.
    const ws = await toolUpgrade(`${admin.origin}/mails/socket.io/?EIO=4&transport=websocket`, { cookie: admin.cookie, origin: admin.origin });
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
      await page.waitForURL(/^http:\/\/mail\.tools\.localhost:\d+\/mails\/$/);
      const scriptErrors: string[] = [];
      // socket.io's send on the socket the reload closes is the old page's, not the tool's policy at work;
      // Chromium reports it as a page error or as a console error, depending on when the reload lands.
      const oldSocket = (text: string) => text.includes('WebSocket is already in CLOSING or CLOSED state');
      page.on('pageerror', (error) => void (!oldSocket(error.message) && scriptErrors.push(error.message)));
      page.on('console', (message) => void (message.type() === 'error' && !oldSocket(message.text()) && scriptErrors.push(message.text())));
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

  it('runs none of a sender\'s script on web\'s origin nor the mail host\'s when an admin opens the message and its attachments in Chromium (issue 24, finding 3)', async () => {
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
    const caught = (JSON.parse((await (await openTool(admin, '/mails/')).get('/mails/email')).body) as Array<CaughtMail & { attachments: Array<{ generatedFileName: string; fileName: string }> }>).find((mail) => mail.subject === subject)!;
    const { id } = caught;
    const invoice = caught.attachments.find((attachment) => attachment.fileName === 'invoice.html')!.generatedFileName;
    const browser = await launchChromium();
    try {
      const page = await (await newContext(browser, { acceptDownloads: true })).newPage();
      await page.goto(`${platform.web}/mails/`);
      await page.getByLabel('E-mail').fill(USERS.admin);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/^http:\/\/mail\.tools\.localhost:\d+\/mails\/$/);
      await page.getByText(subject).first().click();
      await page.frameLocator('iframe').first().getByText('Your invoice').waitFor();
      await page.waitForTimeout(1000);
      expect(await page.title()).to.match(/^MailDev/);
      // Opened by web's address (which sends the browser to the tools host), the attachment is a
      // download and the message's HTML a sandboxed page.
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

  const keyNames = async () => textOf((await (await platform.signedIn('admin')).get('/ssh-keys')).html);

  it('runs no script of an HTML attachment loading another mail\'s attachment (its generated name) on web\'s origin, and adds no SSH key (issue 24, finding 3)', async () => {
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
    await maildevSubjectsWith(platform.config.FORJA_DATA_DIR, `Script ${name}`);
    const listed = JSON.parse((await maildevGet(platform.config.FORJA_DATA_DIR, '/email')).body) as Array<{ id: string; subject: string; attachments: Array<{ generatedFileName: string }> }>;
    const scriptMail = listed.find((one) => one.subject === `Script ${name}`)!;
    const scriptPath = `../../${scriptMail.id}/attachment/${scriptMail.attachments[0]!.generatedFileName}`;
    await send(`Invoice ${name}`, { filename: 'invoice.html', contentType: 'text/html', content: `<!doctype html><title>invoice</title><script src="${scriptPath}"></script><p>invoice</p>` });
    await maildevSubjectsWith(platform.config.FORJA_DATA_DIR, `Invoice ${name}`);
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
