import { createServer } from 'node:net';
import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import type { Infrastructure } from '#shared/platform/infrastructure.ts';
import { launchChromium, newContext, screenshot } from '#test/support/browser.ts';
import { freePort } from '#test/support/freePort.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { readBytes } from '#test/support/rawUpgrade.ts';
import { openTool, toolUpgrade } from '#test/support/toolSession.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

interface CaughtMail {
  id: string;
  subject: string;
  to: Array<{ address: string }>;
}

describe('the mail catcher (maildev, started by Forja) on the tools origin at mail.<tools domain>/mails', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let smtpPort: number;
  let webPort: number;

  before(async () => {
    smtpPort = await freePort();
    webPort = await freePort();
    platform = await startWebPlatform({}, [startMailCatcherProcess], { FORJA_MAILCATCHER_SMTP_PORT: String(smtpPort), FORJA_MAILCATCHER_WEB_PORT: String(webPort) });
  });
  after(() => platform?.stop());

  const sendToCatcher = (subject: string) =>
    nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true }).sendMail({ from: 'erp@example.com', to: 'customer@example.com', subject, text: 'hello' });

  it('shows a mail sent to its SMTP port in its API and its live WebSocket, for every signed-in role', async () => {
    const subject = `Caught ${Date.now()}`;
    await sendToCatcher(subject);
    for (const role of ['viewer', 'developer', 'admin'] as const) {
      const session = await openTool(await platform.signedIn(role), '/mails/');
      const page = await session.get('/mails/');
      expect(page.status, role).to.equal(200);
      expect(page.body, role).to.include('MailDev');
      const list = JSON.parse((await session.get('/mails/email')).body) as CaughtMail[];
      expect(list.map((mail) => mail.subject), role).to.include(subject);
    }
    const viewer = await openTool(await platform.signedIn('viewer'), '/mails/');
    // maildev's UI follows new mail over socket.io: its engine.io handshake answers through the proxy.
    const ws = await toolUpgrade(`${viewer.origin}/mails/socket.io/?EIO=4&transport=websocket`, { cookie: viewer.cookie, origin: viewer.origin });
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
      await page.getByLabel('E-mail').fill(USERS.viewer);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/^http:\/\/mail\.tools\.localhost:\d+\/mails\/$/);
      const scriptErrors: string[] = [];
      // socket.io's send on the socket the reload closes is the old page's, not the tool's policy at work.
      page.on('pageerror', (error) => void (!error.message.includes('WebSocket is already in CLOSING or CLOSED state') && scriptErrors.push(error.message)));
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

  it('asks a request to its own web port for the password only web has (401)', async () => {
    const res = await fetch(`http://127.0.0.1:${webPort}/mails/email`, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).to.equal(401);
  });

  it('refuses to start on a port already taken, naming it and the settings', async () => {
    const holder = createServer();
    const taken = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      const config = loadConfig({ FORJA_MAILCATCHER_SMTP_PORT: String(taken), FORJA_MAILCATCHER_WEB_PORT: String(await freePort()) });
      const error = await startMailCatcherProcess({} as Infrastructure, config, silentLogger).then(() => undefined, (failure: Error) => failure);
      expect(error?.message).to.equal(
        `mail catcher: port ${taken} on 127.0.0.1 is already in use: stop what holds it or set FORJA_MAILCATCHER_SMTP_PORT / FORJA_MAILCATCHER_WEB_PORT (or FORJA_MAILCATCHER=false)`,
      );
    } finally {
      holder.close();
    }
  });

  it('starts nothing when FORJA_MAILCATCHER is false', async () => {
    const port = await freePort();
    const proc = await startMailCatcherProcess({} as Infrastructure, loadConfig({ FORJA_MAILCATCHER: 'false', FORJA_MAILCATCHER_WEB_PORT: String(port) }), silentLogger);
    expect(proc.describe()).to.deep.equal(['off (FORJA_MAILCATCHER=false)']);
    expect(proc.url).to.equal(undefined);
    await proc.stop();
  });
});
