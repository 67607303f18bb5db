import { settingsLoader, type SettingsSchema } from '#shared/config/config.ts';

/** The padrón's own settings, validated like the core ones (one line naming the variable, exit 2). */
export const padronSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    FORJA_PADRON_SALTA_RATES: {
      type: 'string',
      minLength: 1,
      isPath: true,
      description: "YAML or JSON file with Salta's rate table (CM/JU × RA/RB/SR → P and R rates); needed to import Salta's risk file",
    },
    FORJA_PADRON_RATE_LIMIT: {
      type: 'integer',
      minimum: 0,
      maximum: 1000000,
      default: 600,
      description: 'lookups (single or batch requests) per client IP and window; 0 turns the limit off',
    },
    FORJA_PADRON_RATE_WINDOW_S: { type: 'integer', minimum: 1, maximum: 86400, default: 60, description: 'rate-limit window in seconds' },
    FORJA_PADRON_TRUST_PROXY: {
      type: 'integer',
      minimum: 0,
      maximum: 10,
      default: 0,
      description: 'reverse proxies in front of the service whose X-Forwarded-For is trusted for the client IP; 0 = use the socket address',
    },
    FORJA_PADRON_POLL_MS: {
      type: 'integer',
      minimum: 50,
      maximum: 600000,
      default: 2000,
      description: 'how often the lookup service checks for newly published loads (ms)',
    },
    FORJA_PADRON_READ_ONLY: {
      type: 'boolean',
      default: false,
      description: "true when the lookup service's database role may only read: it then leaves creating schema padron to the importer",
    },
    FORJA_PADRON_POOL_MAX: {
      type: 'integer',
      minimum: 2,
      maximum: 100,
      default: 4,
      description: "connections the lookup service's own pool opens to PostgreSQL (it never uses the other processes' pool)",
    },
    FORJA_PADRON_DOWNLOADS_MAX: {
      type: 'integer',
      minimum: 1,
      maximum: 100000,
      default: 32,
      description: 'registry downloads in progress at once, from all clients; more get 503 with Retry-After',
    },
    FORJA_PADRON_DOWNLOADS_PER_IP: {
      type: 'integer',
      minimum: 1,
      maximum: 100000,
      default: 2,
      description: 'registry downloads in progress at once from one client IP; more get 503 with Retry-After',
    },
    FORJA_PADRON_SEND_TIMEOUT_S: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      default: 30,
      description: 'seconds a download may go without its client reading anything before its connection is closed',
    },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface PadronSettings {
  FORJA_PADRON_SALTA_RATES?: string;
  FORJA_PADRON_RATE_LIMIT: number;
  FORJA_PADRON_RATE_WINDOW_S: number;
  FORJA_PADRON_TRUST_PROXY: number;
  FORJA_PADRON_POLL_MS: number;
  FORJA_PADRON_READ_ONLY: boolean;
  FORJA_PADRON_POOL_MAX: number;
  FORJA_PADRON_DOWNLOADS_MAX: number;
  FORJA_PADRON_DOWNLOADS_PER_IP: number;
  FORJA_PADRON_SEND_TIMEOUT_S: number;
}

/** Reads the padrón settings from the environment; throws ConfigError naming a wrong one. */
export const loadPadronSettings: (env?: NodeJS.ProcessEnv) => PadronSettings = settingsLoader<PadronSettings>(padronSettingsSchema);
