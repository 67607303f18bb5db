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
import { maildevGet } from '#test/support/maildev.ts';
import { runDir } from '#test/support/runDir.ts';

describe('the mail catcher process: the SMTP front before maildev', function () {
  this.timeout(60_000);
  let catcher: ForjaProcess;
  let smtpPort: number;
  const config = () => loadConfig({ FORJA_DATA_DIR: dataDir, FORJA_MAILCATCHER_SMTP_PORT: String(smtpPort) });
  let dataDir: string;

  before(async () => {
    [smtpPort, dataDir] = [await freePort(), runDir('mail-catcher')];
    catcher = await startMailCatcherProcess({} as Infrastructure, config(), silentLogger);
  });
  after(() => catcher?.stop());

  const send = (auth: { user: string; pass: string } | undefined, subject: string) =>
    nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, ...(auth ? { auth } : {}) }).sendMail({ from: 'erp@acme.example', to: 'customer@example.com', subject, text: 'hello' });
  /** maildev files a relayed message a moment after taking it. */
  const maildevHolds = async (subject: string) => {
    for (let tries = 0; tries < 50; tries++) {
      const found = (await inMaildev()).find((mail) => mail.subject === subject);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return undefined;
  };
  const inMaildev = async () => JSON.parse((await maildevGet(dataDir, '/email')).body) as Array<{ subject: string; headers: Record<string, string> }>;

  it('keeps an instance\'s mail for it and gives maildev a copy naming the instance', async () => {
    const { masterKey } = resolvePlatformSecrets(config());
    await send(mailboxLogin(masterKey, 'acme-staging'), 'Kept for acme');
    expect((await listCaughtMail(createFsBlobStore(dataDir), 'acme-staging')).map((mail) => mail.subject)).to.deep.equal(['Kept for acme']);
    const copy = await maildevHolds('Kept for acme');
    expect(copy?.headers['x-forja-instance']).to.equal('acme-staging');
  });

  it('gives maildev alone what comes without a login (Forja\'s notices, copies neutralized before mailboxes)', async () => {
    await send(undefined, 'No mailbox');
    expect(await maildevHolds('No mailbox')).not.to.equal(undefined);
  });

  it('refuses a login that is no mailbox\'s', async () => {
    const refused = await send({ user: 'instance:acme-staging', pass: 'guess' }, 'guessed').catch((error: { responseCode?: number }) => error.responseCode);
    expect(refused).to.equal(535);
    expect((await inMaildev()).map((mail) => mail.subject)).not.to.include('guessed');
  });
});
