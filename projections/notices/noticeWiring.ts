import { join } from 'node:path';
import type { Config } from '#shared/config/config.ts';
import type { Logger } from '#shared/log.ts';
import { catcherMailer, fileMailer, smtpMailer, type Mailer } from '#services/notifications/mailer.ts';
import { publicUrlOf, type NotificationSettings } from '#services/notifications/notifications.settings.ts';
import type { NoticeSenderOptions } from './noticeSender.ts';

/** How the projector sends notices: the settings in milliseconds and paths, which tests tune directly. */
export interface NoticeWiring extends NoticeSenderOptions {
  /** Unset: the mail catcher when there is one, else the local mail folder. */
  smtpUrl?: string | undefined;
  /** Forja's mail catcher's SMTP address (smtp://127.0.0.1:1025) when FORJA_MAILCATCHER is on. */
  mailCatcherSmtpUrl?: string | undefined;
  smtpTimeoutMs: number;
  /** Where messages go without an SMTP server. */
  mailFolder: string;
  maxAgeMs: number;
}

/** The longest wait between two attempts at a notice. */
const MAX_RETRY_MS = 3_600_000;
/**
 * An attempt is a connection, a greeting and half a dozen commands, each allowed the SMTP timeout
 * of silence; this many timeouts in all bounds a server that answers just often enough.
 */
const TIMEOUTS_PER_ATTEMPT = 4;

export function noticeWiring(settings: NotificationSettings, config: Config): NoticeWiring {
  const smtpTimeoutMs = settings.FORJA_SMTP_TIMEOUT_S * 1000;
  return {
    smtpUrl: settings.FORJA_SMTP_URL,
    mailCatcherSmtpUrl: config.FORJA_MAILCATCHER ? `smtp://127.0.0.1:${config.FORJA_MAILCATCHER_SMTP_PORT}` : undefined,
    smtpTimeoutMs,
    mailFolder: join(config.FORJA_DATA_DIR, 'mail'),
    maxAgeMs: settings.FORJA_NOTICE_MAX_AGE_H * 3_600_000,
    from: settings.FORJA_MAIL_FROM,
    publicUrl: publicUrlOf(settings, config),
    attempts: settings.FORJA_NOTICE_ATTEMPTS,
    retryMs: settings.FORJA_NOTICE_RETRY_S * 1000,
    maxRetryMs: MAX_RETRY_MS,
    attemptTimeoutMs: smtpTimeoutMs * TIMEOUTS_PER_ATTEMPT,
    pollMs: Math.max(1000, config.FORJA_PROJECTION_POLL_MS),
  };
}

export function mailerFor(wiring: Pick<NoticeWiring, 'smtpUrl' | 'mailCatcherSmtpUrl' | 'smtpTimeoutMs' | 'mailFolder'>, logger: Logger): Mailer {
  if (wiring.smtpUrl) return smtpMailer(wiring.smtpUrl, { timeoutMs: wiring.smtpTimeoutMs });
  if (wiring.mailCatcherSmtpUrl) return catcherMailer(wiring.mailCatcherSmtpUrl, wiring.mailFolder, { timeoutMs: wiring.smtpTimeoutMs }, logger);
  return fileMailer(wiring.mailFolder, logger);
}
