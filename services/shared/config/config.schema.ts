import type { SettingsSchema } from './settingsSchema.ts';

/**
 * Every setting Forja reads, as a JSON Schema over the environment. The README's configuration
 * table is this file in prose: keep them together.
 */
export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    DATABASE_URL: {
      type: 'string',
      pattern: '^postgres(ql)?://',
      description: 'PostgreSQL URL for events (unless EVENTSTORE_URL) and read models; unset = private cluster under FORJA_DATA_DIR',
    },
    EVENTSTORE_URL: {
      type: 'string',
      pattern: '^(esdb|esdb\\+discover|kurrentdb)://',
      description: 'EventStoreDB connection string (esdb://…); unset = events in PostgreSQL',
    },
    NATS_URL: {
      type: 'string',
      pattern: '^(nats|tls)://',
      description: 'NATS server with JetStream (nats://host:4222); unset = in-process bus',
    },
    FORJA_LOCAL_NATS: {
      type: 'boolean',
      default: false,
      description: 'when NATS_URL is unset: true starts a private nats-server under FORJA_DATA_DIR, false uses the in-process bus',
    },
    FORJA_MASTER_KEY: {
      type: 'string',
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description: 'base64 of 32 random bytes (openssl rand -base64 32) sealing schema secrets; unset = generated into FORJA_DATA_DIR/local-secrets.json',
    },
    FORJA_WEBHOOK_SECRET: {
      type: 'string',
      minLength: 16,
      description: 'at least 16 characters; git hook tokens are HMAC-SHA256 of the project slug and its nonce under it; unset = generated locally',
    },
    FORJA_SERVICE_TOKEN: {
      type: 'string',
      minLength: 32,
      description: 'at least 32 characters shared by web and control-plane for internal commands; unset = generated locally',
    },
    FORJA_CONTROL_PLANE_URL: {
      type: 'string',
      pattern: '^https?://',
      description: 'where web reaches the control-plane; unset = http://127.0.0.1:FORJA_CONTROL_PLANE_PORT',
    },
    FORJA_DATA_DIR: { type: 'string', minLength: 1, default: '.data', isPath: true, description: 'folder for the private database, blobs and logs' },
    FORJA_TENANT_UID_RANGE: {
      type: 'string',
      pattern: '^[0-9]+-[0-9]+$',
      default: '60000-64999',
      description: 'as root: uids and gids of the OS accounts made for each instance and migration (fi-<slug>, fm-<slug>), so no tenant reads another\'s files or processes',
    },
    FORJA_HOST: { type: 'string', minLength: 1, default: '127.0.0.1', description: 'address the HTTP processes listen on' },
    FORJA_CONTROL_PLANE_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 8080, description: 'control-plane port' },
    FORJA_WEB_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 8081, description: 'web port' },
    FORJA_PADRON_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 8082, description: 'padron lookup port' },
    FORJA_MAILCATCHER: { type: 'boolean', default: true, description: 'true: `npm start` runs the mail catcher (maildev) and web proxies its UI on the tools origin (mail.<FORJA_TOOLS_DOMAIN>/mails/, administrators); false: no catcher' },
    FORJA_MAILCATCHER_SMTP_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 1025, description: 'SMTP port of the mail catcher, on 127.0.0.1' },
    FORJA_MONITORING: { type: 'boolean', default: true, description: 'true: `npm start` runs Prometheus (Debian package prometheus) when installed and web proxies it on the tools origin (monitoring.<FORJA_TOOLS_DOMAIN>/monitoring/); false: no monitoring' },
    FORJA_MONITORING_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 9090, description: 'Prometheus port, on 127.0.0.1 (users reach it through web on the tools origin)' },
    FORJA_MONITORING_SCRAPE_S: { type: 'integer', minimum: 1, maximum: 3600, default: 15, description: 'seconds between two Prometheus scrapes of Forja, the instances and their databases' },
    FORJA_DBADMIN: { type: 'boolean', default: true, description: 'true: `npm start` runs Adminer (Debian packages adminer, php-cli, php-pgsql) when installed and web proxies it on the tools origin (dbadmin-<instance>.<FORJA_TOOLS_DOMAIN>/dbadmin/<instance>/); false: no database admin' },
    FORJA_DBADMIN_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 8087, description: "Adminer's port (PHP's built-in server), on 127.0.0.1 (developers reach it through web on the tools origin)" },
    FORJA_ERP_ROUTER: { type: 'boolean', default: true, description: 'true: `npm start` runs the ERP router, which answers each instance at <slug>.FORJA_INSTANCE_DOMAIN; false: no router' },
    FORJA_ERP_ROUTER_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 8083, description: 'ERP router port: http://<slug>.localhost:8083/ reaches the instance <slug>' },
    FORJA_INSTANCE_DOMAIN: {
      type: 'string',
      pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$',
      default: 'localhost',
      description: 'the ERP router answers <slug>.<domain>; localhost links to http://<slug>.localhost:FORJA_ERP_ROUTER_PORT/, another domain to https://<slug>.<domain>/ (a TLS proxy in front); the docker runtime labels containers with it too',
    },
    FORJA_TOOLS_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 8084, description: "web's second listener, on FORJA_HOST: the tools' own origin (mail catcher, monitoring, database admin, notebook and code editors), one host per tool under FORJA_TOOLS_DOMAIN" },
    FORJA_TOOLS_DOMAIN: {
      type: 'string',
      pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$',
      default: 'tools.localhost',
      description: 'tools answer <tool>[-<instance>].<domain>; a *.localhost domain links to http://…:FORJA_TOOLS_PORT/, another to https://<host>/ (a TLS proxy in front with a wildcard *.<domain>)',
    },
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
      description: 'one of fatal, error, warn, info, debug, trace, silent',
    },
    LOG_FORMAT: {
      type: 'string',
      enum: ['auto', 'pretty', 'json'],
      default: 'auto',
      description: 'auto = pretty in a terminal, JSON otherwise',
    },
    FORJA_GIT_FILE_ROOTS: {
      type: 'string',
      pattern: '^\\s*/[^,]*(,\\s*/[^,]*)*$',
      description: 'comma-separated absolute folders that local git repositories (file:// or a path) may come from; unset = none, file:// repositories are refused',
    },
    FORJA_GIT_ALLOW_HOSTS: {
      type: 'string',
      pattern: '^\\s*\\[?[A-Za-z0-9_.:-]+\\]?(/[0-9]{1,3})?(\\s*,\\s*\\[?[A-Za-z0-9_.:-]+\\]?(/[0-9]{1,3})?)*\\s*$',
      description: 'comma-separated host names, addresses and CIDR ranges git may reach although they are loopback, private or link-local; unset = only public hosts',
    },
  FORJA_PULL_ALLOW_HOSTS: {
    type: 'string',
    description:
      'comma-separated host names, addresses and CIDR ranges (files.internal, 10.0.0.0/8) a migration pull_url (and its redirects) may reach although they are loopback, private or link-local; cloud metadata addresses only when listed one by one; unset = public hosts only',
  },
  FORJA_PULL_MAX_BYTES: {
    type: 'integer',
    minimum: 1,
    default: 53_687_091_200,
    description: 'a pull_url download larger than this is refused (by its Content-Length, or while it streams) and its partial file deleted; default 50 GiB',
  },
    FORJA_PROJECTION_BATCH: { type: 'integer', minimum: 1, maximum: 100000, default: 1000, description: 'events per projection batch' },
    FORJA_PROJECTION_POLL_MS: {
      type: 'integer',
      minimum: 50,
      maximum: 600000,
      default: 1000,
      description: 'how often subscribers poll when no append notice arrives (ms)',
    },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface Config {
  DATABASE_URL?: string;
  EVENTSTORE_URL?: string;
  NATS_URL?: string;
  FORJA_LOCAL_NATS: boolean;
  FORJA_MASTER_KEY?: string;
  FORJA_WEBHOOK_SECRET?: string;
  FORJA_SERVICE_TOKEN?: string;
  FORJA_CONTROL_PLANE_URL?: string;
  FORJA_DATA_DIR: string;
  FORJA_TENANT_UID_RANGE: string;
  FORJA_HOST: string;
  FORJA_CONTROL_PLANE_PORT: number;
  FORJA_WEB_PORT: number;
  FORJA_PADRON_PORT: number;
  FORJA_MAILCATCHER: boolean;
  FORJA_MAILCATCHER_SMTP_PORT: number;
  FORJA_MONITORING: boolean;
  FORJA_MONITORING_PORT: number;
  FORJA_MONITORING_SCRAPE_S: number;
  FORJA_DBADMIN: boolean;
  FORJA_DBADMIN_PORT: number;
  FORJA_ERP_ROUTER: boolean;
  FORJA_ERP_ROUTER_PORT: number;
  FORJA_INSTANCE_DOMAIN: string;
  FORJA_TOOLS_PORT: number;
  FORJA_TOOLS_DOMAIN: string;
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  LOG_FORMAT: 'auto' | 'pretty' | 'json';
  FORJA_GIT_FILE_ROOTS?: string;
  FORJA_GIT_ALLOW_HOSTS?: string;
  FORJA_PULL_ALLOW_HOSTS?: string;
  FORJA_PULL_MAX_BYTES: number;
  FORJA_PROJECTION_BATCH: number;
  FORJA_PROJECTION_POLL_MS: number;
}
