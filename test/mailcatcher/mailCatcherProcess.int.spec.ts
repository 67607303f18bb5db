import { expect } from 'chai';
import nodemailer from 'nodemailer';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import { listCaughtMail } from '#shared/mail/caughtMail.ts';
import { mailboxLogin } from '#shared/mail/mailboxLogin.ts';
import type { Infrastructure } from '#shared/platform/infrastructure.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { freePort } from '#test/support/freePort.ts';
import { runDir } from '#test/support/runDir.ts';

describe('the mail catcher process: the SMTP front before maildev', function () {
  this.timeout(60_000);
  let catcher: ForjaProcess;
  let smtpPort: number;
  let webPort: number;
  const config = () => loadConfig({ FORJA_DATA_DIR: dataDir, FORJA_MAILCATCHER_SMTP_PORT: String(smtpPort), FORJA_MAILCATCHER_WEB_PORT: String(webPort) });
  let dataDir: string;

  before(async () => {
    [smtpPort, webPort, dataDir] = [await freePort(), await freePort(), runDir('mail-catcher')];
    catcher = await startMailCatcherProcess({} as Infrastructure, config(), silentLogger);
  });
  after(() => catcher?.stop());

  const send = (auth: { user: string; pass: string } | undefined, subject: string) =>
    nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, ...(auth ? { auth } : {}) }).sendMail({ from: 'erp@acme.example', to: 'customer@example.com', subject, text: 'hello' });
  const inMaildev = async () => (await (await fetch(`http://127.0.0.1:${webPort}/mails/email`)).json()) as Array<{ subject: string; headers: Record<string, string> }>;

  it('keeps an instance\'s mail for it and gives maildev a copy naming the instance', async () => {
    const { masterKey } = resolvePlatformSecrets(config());
    await send(mailboxLogin(masterKey, 'acme-staging'), 'Kept for acme');
    expect((await listCaughtMail(createFsBlobStore(dataDir), 'acme-staging')).map((mail) => mail.subject)).to.deep.equal(['Kept for acme']);
    const copy = (await inMaildev()).find((mail) => mail.subject === 'Kept for acme');
    expect(copy?.headers['x-forja-instance']).to.equal('acme-staging');
  });

  it('gives maildev alone what comes without a login (Forja\'s notices, copies neutralized before mailboxes)', async () => {
    await send(undefined, 'No mailbox');
    expect((await inMaildev()).map((mail) => mail.subject)).to.include('No mailbox');
  });

  it('refuses a login that is no mailbox\'s', async () => {
    const refused = await send({ user: 'instance:acme-staging', pass: 'guess' }, 'guessed').catch((error: { responseCode?: number }) => error.responseCode);
    expect(refused).to.equal(535);
    expect((await inMaildev()).map((mail) => mail.subject)).not.to.include('guessed');
  });
});
