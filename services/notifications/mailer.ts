import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '#shared/log.ts';

export interface OutgoingMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  messageId: string;
  headers?: Record<string, string>;
}

export interface MailReceipt {
  messageId: string;
  accepted: string[];
  rejected: string[];
  /** How this message went, from a mailer that chooses per message (the mail catcher, else a file). */
  via?: 'smtp' | 'file';
}

/** Where notices go: an SMTP server, or the local catcher folder. */
export interface Mailer {
  readonly via: 'smtp' | 'file';
  /** For the start-up banner, without credentials. */
  readonly describe: string;
  /** Resolves once the server took the message for at least one recipient; rejects otherwise, or when `signal` aborts. */
  send(mail: OutgoingMail, signal: AbortSignal): Promise<MailReceipt>;
  close(): void;
}

export interface SmtpTimeouts {
  /** Each of: connecting and the greeting; any silence of the server afterwards gets twice this. */
  timeoutMs: number;
}

/**
 * Sends through `url` (smtp://user:pass@host:587, smtps://… for TLS from the start). One
 * connection per message: notices are rare, and a pooled connection a server dropped overnight
 * would cost the next notice an attempt. A server that never answers is given up after the
 * timeouts, and `signal` cuts an attempt short whatever the server does.
 */
export function smtpMailer(url: string, { timeoutMs }: SmtpTimeouts): Mailer {
  // The silence timer starts when the socket is made, before the greeting's: were they equal, a
  // server that accepts and never speaks would be recorded as a bare "Timeout" whenever the
  // connection took a moment, instead of "Greeting never received".
  const transport = nodemailer.createTransport({ url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs * 2, dnsTimeout: timeoutMs });
  const shown = new URL(url);
  return {
    via: 'smtp',
    describe: `${shown.protocol}//${shown.host}`,
    async send(mail, signal) {
      const info = await transport.sendMail({ ...mail, signal });
      return { messageId: info.messageId, accepted: info.accepted.map(String), rejected: info.rejected.map(String) };
    },
    close: () => transport.close(),
  };
}

/**
 * Without FORJA_SMTP_URL nothing is lost silently: each message is written whole as an `.eml`
 * file under `folder` (any mail client opens it) and one log line says where.
 */
export function fileMailer(folder: string, logger: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    via: 'file',
    describe: `.eml files under ${folder} (FORJA_SMTP_URL is unset)`,
    async send(mail, signal) {
      signal.throwIfAborted();
      const info = await transport.sendMail(mail);
      mkdirSync(folder, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.messageId.replace(/[^A-Za-z0-9.-]/g, '')}.eml`;
      // Written aside, then renamed: a reader of the folder never sees half a message.
      const partial = join(folder, `.${randomUUID()}.part`);
      writeFileSync(partial, info.message as Buffer);
      renameSync(partial, join(folder, name));
      logger.info({ to: mail.to, subject: mail.subject, file: join(folder, name) }, 'notice written to the local mail folder (FORJA_SMTP_URL is unset)');
      return { messageId: info.messageId, accepted: [...mail.to], rejected: [] };
    },
    close: () => transport.close(),
  };
}

/** Whether sending failed because nothing listens at the SMTP address (the mail catcher is not running). */
function refused(error: unknown): boolean {
  const failure = error as { code?: string; message?: string };
  return failure.code === 'ESOCKET' && /ECONNREFUSED/.test(failure.message ?? '');
}

/**
 * Without FORJA_SMTP_URL but with Forja's mail catcher: notices go to the catcher, where a tester
 * reads them at /mails; when it is not running (the projector started alone), to `.eml` files.
 */
export function catcherMailer(catcherUrl: string, folder: string, timeouts: SmtpTimeouts, logger: Logger): Mailer {
  const catcher = smtpMailer(catcherUrl, timeouts);
  const files = fileMailer(folder, logger);
  return {
    via: 'smtp',
    describe: `the mail catcher at ${catcher.describe} (FORJA_SMTP_URL is unset), else ${files.describe.replace(/ \(FORJA_SMTP_URL is unset\)$/, '')} while it is not running`,
    async send(mail, signal) {
      try {
        return { ...(await catcher.send(mail, signal)), via: 'smtp' };
      } catch (error) {
        if (!refused(error)) throw error;
        return { ...(await files.send(mail, signal)), via: 'file' };
      }
    },
    close() {
      catcher.close();
      files.close();
    },
  };
}
