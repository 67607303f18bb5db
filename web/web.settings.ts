import { settingsLoader, type SettingsSchema } from '#shared/config/config.ts';

/** Settings only web reads; the shared ones (ports, database, secrets) are in services/shared/config. */
export const webSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    FORJA_TRUST_PROXY: {
      type: 'integer',
      minimum: 0,
      maximum: 10,
      default: 0,
      description: 'how many reverse proxies sit in front of web (0 = none); with one or more, X-Forwarded-Proto decides secure cookies',
    },
    FORJA_PUBLIC_URL: { type: 'string', pattern: '^https?://[^/]+$', description: 'the address users open web at (no trailing slash), for the identity-provider redirect; unset = the scheme and host each request came to' },
    FORJA_HOOK_BASE_URL: { type: 'string', pattern: '^https?://[^/]+$', description: 'the address git hosts reach the control-plane at, shown with the push hook URL' },
    FORJA_OIDC_ISSUER: { type: 'string', pattern: '^https?://', description: 'identity provider issuer URL; unset = identity-provider login off' },
    FORJA_OIDC_CLIENT_ID: { type: 'string', minLength: 1, description: 'client id registered at the identity provider' },
    FORJA_OIDC_CLIENT_SECRET: { type: 'string', minLength: 1, description: 'client secret registered at the identity provider' },
    FORJA_OIDC_ALLOWED_DOMAINS: {
      type: 'string',
      pattern: '^[a-z0-9.-]+(,[a-z0-9.-]+)*$',
      description: 'comma-separated e-mail domains allowed to sign in through the identity provider, matched exactly (example.com,example.org); unset = nobody',
    },
    FORJA_OIDC_LABEL: { type: 'string', minLength: 1, default: 'Sign in with your company account', description: 'text of the identity-provider button' },
    FORJA_BODY_TIMEOUT_S: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 30,
      description: 'seconds a request has to send its headers and its whole body; a slower one gets 408 and is closed (dump uploads alone may take hours)',
    },
    FORJA_TOOL_IDLE: {
      type: 'string',
      pattern: '^[0-9]+(s|m|h|d)$',
      default: '30m',
      description: "an instance's notebook or code editor with no request for this long is stopped; the next request starts it again (90s, 30m, 2h)",
    },
    FORJA_UPLOAD_MAX_BYTES: {
      type: 'integer',
      minimum: 1,
      default: 21_474_836_480,
      description: 'largest upload web takes for an instance (dump and filestore archive together), in bytes; default 20 GiB',
    },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface WebSettings {
  FORJA_TRUST_PROXY: number;
  FORJA_PUBLIC_URL?: string;
  FORJA_HOOK_BASE_URL?: string;
  FORJA_OIDC_ISSUER?: string;
  FORJA_OIDC_CLIENT_ID?: string;
  FORJA_OIDC_CLIENT_SECRET?: string;
  FORJA_OIDC_ALLOWED_DOMAINS?: string;
  FORJA_OIDC_LABEL: string;
  FORJA_BODY_TIMEOUT_S: number;
  FORJA_UPLOAD_MAX_BYTES: number;
  FORJA_TOOL_IDLE: string;
}

export const loadWebSettings = settingsLoader<WebSettings>(webSettingsSchema);
