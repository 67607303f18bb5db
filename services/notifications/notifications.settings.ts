import { settingsLoader, type Config, type SettingsSchema } from '#shared/config/config.ts';

/** The e-mail notices' settings, read by the projector (which runs the notice reactor and sender). */
export const notificationSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    FORJA_SMTP_URL: {
      type: 'string',
      pattern: '^smtps?://[^/]+',
      description: 'SMTP server for migration notices (smtp://user:pass@host:587, STARTTLS when offered; smtps://… for TLS from the start); unset = each message written as an .eml file under FORJA_DATA_DIR/mail',
    },
    FORJA_MAIL_FROM: { type: 'string', minLength: 3, default: 'Forja <forja@localhost>', description: 'From of the notices (Forja <forja@example.com>)' },
    // The variable web reads for its identity-provider redirect: the same address, read here for links in mail.
    FORJA_PUBLIC_URL: {
      type: 'string',
      pattern: '^https?://[^/]+$',
      description: 'the address users open web at (no trailing slash): links in notices point there; unset = http://FORJA_HOST:FORJA_WEB_PORT',
    },
    FORJA_SMTP_TIMEOUT_S: { type: 'integer', minimum: 1, maximum: 600, default: 30, description: 'seconds the SMTP server has to accept the connection, greet, and answer each command' },
    FORJA_NOTICE_ATTEMPTS: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'attempts at sending a notice before it is recorded as failed' },
    FORJA_NOTICE_RETRY_S: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 30,
      description: 'seconds before the second attempt; each later wait doubles, up to an hour',
    },
    FORJA_NOTICE_MAX_AGE_H: {
      type: 'integer',
      minimum: 1,
      maximum: 8760,
      default: 24,
      description: 'run events older than this many hours get no notice (a new projector reading the whole history would mail every past run)',
    },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface NotificationSettings {
  FORJA_SMTP_URL?: string;
  FORJA_MAIL_FROM: string;
  FORJA_PUBLIC_URL?: string;
  FORJA_SMTP_TIMEOUT_S: number;
  FORJA_NOTICE_ATTEMPTS: number;
  FORJA_NOTICE_RETRY_S: number;
  FORJA_NOTICE_MAX_AGE_H: number;
}

export const loadNotificationSettings: (env?: NodeJS.ProcessEnv) => NotificationSettings = settingsLoader<NotificationSettings>(notificationSettingsSchema);

/** Web's address as users open it: FORJA_PUBLIC_URL, or web's own port on this machine. */
export function publicUrlOf(settings: Pick<NotificationSettings, 'FORJA_PUBLIC_URL'>, config: Pick<Config, 'FORJA_HOST' | 'FORJA_WEB_PORT'>): string {
  if (settings.FORJA_PUBLIC_URL) return settings.FORJA_PUBLIC_URL;
  // A wildcard listen address is no address to open; this machine is.
  const host = ['0.0.0.0', '::', '[::]'].includes(config.FORJA_HOST) ? '127.0.0.1' : config.FORJA_HOST.includes(':') ? `[${config.FORJA_HOST}]` : config.FORJA_HOST;
  return `http://${host}:${config.FORJA_WEB_PORT}`;
}
