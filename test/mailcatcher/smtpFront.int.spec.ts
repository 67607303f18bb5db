import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { startSmtpFront, type SmtpFront } from '#services/mailcatcher/smtpFront.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { silentLogger } from '#shared/log.ts';
import { listCaughtMail, readCaughtMail } from '#shared/mail/caughtMail.ts';
import { mailboxLogin } from '#shared/mail/mailboxLogin.ts';
import { freePort } from '#test/support/freePort.ts';

const MASTER_KEY = 'test-master-key';

describe('the mail catcher keeps each instance\'s mail for that instance (issue 24)', function () {
  this.timeout(30_000);
  let dir: string;
  let front: SmtpFront;
  let port: number;
  const blobs = () => createFsBlobStore(dir);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'forja-smtp-front-'));
    port = await freePort();
    front = await startSmtpFront({ host: '127.0.0.1', port, masterKey: MASTER_KEY, blobs: blobs(), relay: null, maxBytes: 64 * 1024, logger: silentLogger });
  });
  after(async () => {
    await front?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What the ERP does with its placeholder server: plain SMTP, a login when smtp_user is set. */
  const send = (auth: { user: string; pass: string } | undefined, subject: string, extra: Partial<SendMailOptions> = {}) =>
    nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, ...(auth ? { auth } : {}) }).sendMail({ from: 'erp@acme.example', to: 'customer@example.com', subject, text: 'reset your password: https://acme/reset?token=secret', ...extra });

  it('keeps mail sent with an instance\'s login in that instance\'s mailbox alone', async () => {
    await send(mailboxLogin(MASTER_KEY, 'acme-staging'), 'Password reset');
    const kept = await listCaughtMail(blobs(), 'acme-staging');
    expect(kept.map((mail) => mail.subject)).to.deep.equal(['Password reset']);
    expect(kept[0]).to.deep.include({ from: 'erp@acme.example', to: ['customer@example.com'], attachments: 0 });
    expect((await readCaughtMail(blobs(), 'acme-staging', kept[0]!.id))!.toString()).to.include('token=secret');
    expect(await listCaughtMail(blobs(), 'other-customer')).to.deep.equal([]);
  });

  it('refuses a wrong login, another instance\'s password and mail without a login when there is no administrators\' catcher, keeping nothing', async () => {
    const acme = mailboxLogin(MASTER_KEY, 'acme-staging');
    const other = mailboxLogin(MASTER_KEY, 'other-customer');
    const refusals = await Promise.all([
      send({ user: other.user, pass: acme.pass }, 'forged').catch((error: { responseCode?: number }) => error.responseCode),
      send({ user: 'instance:acme-staging', pass: 'guess' }, 'guessed').catch((error: { responseCode?: number }) => error.responseCode),
      send(mailboxLogin('another-forja', 'acme-staging'), 'another key').catch((error: { responseCode?: number }) => error.responseCode),
      send(undefined, 'anonymous').catch((error: { responseCode?: number }) => error.responseCode),
    ]);
    expect(refusals).to.deep.equal([535, 535, 535, 530]);
    expect((await listCaughtMail(blobs(), 'other-customer')).map((mail) => mail.subject)).to.deep.equal([]);
    expect((await listCaughtMail(blobs(), 'acme-staging')).map((mail) => mail.subject)).not.to.include.members(['forged', 'guessed', 'another key']);
  });

  it('refuses a message past its size limit with 552', async () => {
    const code = await send(mailboxLogin(MASTER_KEY, 'big-one'), 'too big', { text: 'x'.repeat(200 * 1024) }).catch((error: { responseCode?: number }) => error.responseCode);
    expect(code).to.equal(552);
    expect(await listCaughtMail(blobs(), 'big-one')).to.deep.equal([]);
  });
});
