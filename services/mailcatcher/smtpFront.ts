import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import type { Logger } from '#shared/log.ts';
import { keepCaughtMail } from '#shared/mail/caughtMail.ts';
import { mailboxOf } from '#shared/mail/mailboxLogin.ts';

/** maildev's own SMTP server, behind the front: every message goes there too, for the administrators' view of all mail. */
export interface MaildevRelay {
  port: number;
  user: string;
  pass: string;
}

export interface SmtpFrontOptions {
  host: string;
  port: number;
  masterKey: Buffer | string;
  blobs: BlobStore;
  relay: MaildevRelay | null;
  /** The biggest message taken (SMTP SIZE): 25 MiB, as common mail servers. */
  maxBytes?: number;
  logger: Logger;
}

export interface SmtpFront {
  close(): Promise<void>;
}

const smtpError = (message: string, responseCode: number) => Object.assign(new Error(message), { responseCode });

/**
 * The mail catcher's SMTP server, where neutralized copies send their mail. A copy logs in with its
 * instance's mailbox login (mailboxLogin.ts), and its mail is kept for that instance alone; a wrong
 * login is refused. Mail without a login (a copy neutralized before mailboxes, Forja's own notices)
 * goes only to maildev, which administrators alone open.
 */
export async function startSmtpFront(options: SmtpFrontOptions): Promise<SmtpFront> {
  const maxBytes = options.maxBytes ?? 25 * 1024 * 1024;
  const relay = options.relay ? nodemailer.createTransport({ host: '127.0.0.1', port: options.relay.port, secure: false, ignoreTLS: true, auth: { user: options.relay.user, pass: options.relay.pass } }) : null;
  const server = new SMTPServer({
    name: 'forja-mail-catcher',
    banner: 'Forja mail catcher: nothing sent here leaves this machine',
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: true,
    // Plain text on loopback: the copies' placeholder server has no TLS (smtp_encryption none).
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    size: maxBytes,
    logger: false,
    onAuth(auth: SMTPServerAuthentication, _session: SMTPServerSession, callback) {
      const slug = mailboxOf(options.masterKey, auth.username ?? '', auth.password ?? '');
      if (!slug) return callback(smtpError('Invalid username or password', 535));
      callback(null, { user: slug });
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      void receive(stream, session).then(
        () => callback(),
        (error: Error) => callback(error),
      );
    },
  });

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    if (stream.sizeExceeded) throw smtpError(`Message exceeds the catcher's limit of ${maxBytes} bytes`, 552);
    const raw = Buffer.concat(chunks);
    const slug = typeof session.user === 'string' ? session.user : null;
    if (!slug && !relay) throw smtpError('Authentication required: log in with the instance\'s mailbox', 530);
    const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((rcpt) => rcpt.address) };
    if (slug) {
      const parsed = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true });
      const to = [parsed.to ?? []].flat().flatMap((address) => address.value.map((value) => value.address ?? ''));
      await keepCaughtMail(options.blobs, slug, raw, { receivedAt: new Date().toISOString(), from: parsed.from?.text ?? envelope.from, to: to.length > 0 ? to : envelope.to, subject: parsed.subject ?? '', attachments: parsed.attachments.length }, new Date());
    }
    if (!relay) return;
    const tagged = Buffer.concat([Buffer.from(`X-Forja-Instance: ${slug ?? '(none: no mailbox login)'}\r\n`), raw]);
    try {
      await relay.sendMail({ envelope, raw: tagged });
    } catch (error) {
      // Kept for its instance already: the administrators' copy is not worth a refusal the ERP would retry.
      options.logger.warn({ err: error, instance: slug }, 'mail catcher: maildev did not take a message');
      if (!slug) throw smtpError('The catcher cannot keep this message now: try again later', 451);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => options.logger.warn({ err: error }, 'mail catcher: SMTP connection error'));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        relay?.close();
        server.close(() => resolve());
      }),
  };
}
