import { settingsLoader, type SettingsSchema } from '#shared/config/config.ts';
import type { ErpServerSettings } from './runtime/erpOptions.ts';

/** The executor's settings: where ERP instances run and how their jobs are paced. */
export const executorSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    FORJA_RUNTIME: {
      type: 'string',
      enum: ['auto', 'process', 'docker'],
      default: 'auto',
      description: 'where instances run: process (child processes on 127.0.0.1), docker (Docker Engine API at FORJA_DOCKER_SOCKET), auto = docker when its socket answers, else process',
    },
    FORJA_ERP_COMMAND: {
      type: 'string',
      minLength: 1,
      description:
        'process runtime: the odoo-bin-compatible command, a program and its first arguments split on whitespace (/opt/venv/{version}/bin/python /opt/odoo/{version}/odoo-bin); {version} is replaced by the ERP version; unset = the ERP stand-in shipped in the repo',
    },
    FORJA_PIP_INDEX_URL: {
      type: 'string',
      pattern: '^(https?|file)://',
      description: "process runtime: the package index pip installs instances' requirements.txt from (pip --index-url); unset = pip's own configuration, or only FORJA_PIP_FIND_LINKS when that is set",
    },
    FORJA_PIP_FIND_LINKS: {
      type: 'string',
      minLength: 1,
      isPath: true,
      description: "process runtime: a folder of wheels pip installs instances' requirements.txt from (pip --find-links); without FORJA_PIP_INDEX_URL pip then uses no index at all",
    },
    FORJA_ERP_ADDONS: {
      type: 'string',
      description:
        "the ERP's standard addons folders, comma-separated, first on every instance's addons path; {version} is replaced (/opt/odoo/{version}/addons); unset = the stand-in's own when the ERP is the stand-in, else none (the ERP's default)",
    },
    FORJA_OPENUPGRADE_PATH: {
      type: 'string',
      minLength: 1,
      description:
        "OCA OpenUpgrade's checkout of a version, {version} replaced (/opt/openupgrade/{version}): its root (openupgrade_framework, openupgrade_scripts) goes on the addons path of OpenUpgrade hops, and its openupgrade_scripts/scripts is ${paths.upgrade} unless FORJA_UPGRADE_PATH says otherwise; unset = the stand-in's imitation when the ERP is the stand-in, else such a hop fails saying so",
    },
    FORJA_ERP_ENTERPRISE_ADDONS: {
      type: 'string',
      minLength: 1,
      description: 'the enterprise addons folder, {version} replaced (/opt/odoo/{version}/enterprise), on the addons path of enterprise-edition instances; unset = such an instance fails its build saying so',
    },
    FORJA_ERP_DATABASE_URL: {
      type: 'string',
      pattern: '^postgres(ql)?://',
      description: "PostgreSQL server for the instances' databases, as a user allowed to create databases; unset = a private cluster under FORJA_DATA_DIR/erp-postgres",
    },
    FORJA_DOCKER_SOCKET: { type: 'string', minLength: 1, default: '/var/run/docker.sock', isPath: true, description: 'docker runtime: unix socket of the Docker Engine API (podman system service works)' },
    FORJA_DOCKER_IMAGE: {
      type: 'string',
      minLength: 1,
      default: 'odoo:{version}',
      description: 'docker runtime: ERP image, {version} replaced by the ERP version; must be present on the engine (Forja never pulls)',
    },
    FORJA_DOCKER_NETWORK_MODE: {
      type: 'string',
      enum: ['bridge', 'host'],
      default: 'host',
      description:
        'docker runtime: host = the host network, the ERP binds 127.0.0.1 (reaches a database on 127.0.0.1, like the private one); bridge = a network per instance, port published on 127.0.0.1 (the database must be reachable from containers)',
    },
    FORJA_INSTANCE_DOMAIN: {
      type: 'string',
      pattern: '^[a-z0-9.-]+$',
      description: 'docker runtime: routing labels give each instance the host <slug>.<domain> for a reverse proxy (Traefik labels)',
    },
    FORJA_SLEEP_AFTER: {
      type: 'string',
      pattern: '^[0-9]+(s|m|h|d)$',
      default: '24h',
      description: 'development instances with no action for this long are put to sleep (90s, 30m, 24h, 7d)',
    },
    FORJA_ERP_PORTS: {
      type: 'string',
      pattern: '^[0-9]{4,5}-[0-9]{4,5}$',
      default: '20000-29999',
      description: "range of ERP ports on 127.0.0.1: each instance gets one at its first start and keeps it; keep it outside the kernel's ephemeral range (32768-60999)",
    },
    FORJA_ERP_MEMORY_MB: { type: 'integer', minimum: 256, maximum: 1048576, default: 4096, description: 'docker runtime: memory limit of each ERP container, MiB (swap included)' },
    FORJA_ERP_PIDS: { type: 'integer', minimum: 64, maximum: 65536, default: 1024, description: 'docker runtime: most processes and threads in each ERP container' },
    FORJA_ERP_WORKERS: { type: 'integer', minimum: 0, maximum: 64, default: 0, description: 'workers of each ERP server (its `workers` option): 0 = threaded; more = prefork workers, and /websocket routed to a gevent port of its own' },
    FORJA_ERP_LIMIT_MEMORY_SOFT_MB: { type: 'integer', minimum: 64, maximum: 1048576, default: 2048, description: "ERP `limit_memory_soft`, MiB: a worker above it is recycled after its request (Odoo's default)" },
    FORJA_ERP_LIMIT_MEMORY_HARD_MB: { type: 'integer', minimum: 64, maximum: 1048576, default: 2560, description: "ERP `limit_memory_hard`, MiB: a worker above it is killed at once (Odoo's default)" },
    FORJA_ERP_LIMIT_TIME_CPU_S: { type: 'integer', minimum: 1, maximum: 86400, default: 60, description: "ERP `limit_time_cpu`: CPU seconds one request may take in a worker (Odoo's default)" },
    FORJA_ERP_LIMIT_TIME_REAL_S: { type: 'integer', minimum: 1, maximum: 86400, default: 120, description: "ERP `limit_time_real`: seconds one request may take in a worker (Odoo's default)" },
    FORJA_EXECUTOR_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 64, default: 4, description: 'instance jobs one executor runs at once' },
    FORJA_MIGRATION_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 16, default: 1, description: 'migration runs one executor runs at once (their own consumer: a long run never takes an instance job’s slot)' },
    FORJA_UPGRADE_SERVICE_URL: { type: 'string', pattern: '^https?://', description: 'the ERP vendor’s upgrade platform (the upgrade-service engine); unset = that engine’s runs fail saying so' },
    FORJA_UPGRADE_SERVICE_SSH_USER: {
      type: 'string',
      pattern: '^[a-z_][a-z0-9_.-]{0,31}$',
      default: 'odoo',
      description: 'the account on the upgrade platform’s node that rsync over SSH moves dumps with (the vendor’s script: odoo)',
    },
    FORJA_UPGRADE_SERVICE_DATA_PATH: {
      type: 'string',
      pattern: '^/[^\\s]*$',
      default: '/data',
      description: 'the folder on the upgrade platform’s node that dumps are moved to and from (the vendor’s script: /data)',
    },
    FORJA_UPGRADE_PATH: {
      type: 'string',
      minLength: 1,
      description: 'the upgrade scripts of the ERP of a version (`${paths.upgrade}` in recipes), `{version}` replaced, e.g. /opt/openupgrade/{version}/openupgrade_scripts/scripts; unset = the ERP stand-in’s own scripts',
    },
    FORJA_UPGRADE_UTIL_PATH: {
      type: 'string',
      minLength: 1,
      description: 'odoo/upgrade-util’s src folder, `{version}` replaced if given: `${paths.upgrade}` of enterprise (upgrade-service) hops, whose custom modules are updated locally after the platform’s upgrade; unset = the ERP stand-in’s own scripts',
    },
    FORJA_HEALTH_TIMEOUT_S: { type: 'integer', minimum: 1, maximum: 3600, default: 120, description: 'how long the health check waits for a started ERP to be ready: 200 on /web/login?db=<database> (and /web/health?db_server_status=1 on 17.0+)' },
    FORJA_JOB_ACK_WAIT_S: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 30,
      description: 'a job whose executor stops reporting for this long is redelivered to another executor (it resumes at its first unfinished step)',
    },
    FORJA_RESTORE_JOBS: {
      type: 'integer',
      minimum: 1,
      maximum: 64,
      description: 'pg_restore --jobs for custom-format dumps of 16 MiB and more (instance uploads and copies from a file, migration restores); 1 restores in one session; unset = the CPU count, at most 4',
    },
    FORJA_FILESTORE_MAX_BYTES: {
      type: 'integer',
      minimum: 1,
      default: 53_687_091_200,
      description:
        'an uploaded filestore archive, or the dump.sql of an ERP backup .zip, that would expand to more bytes is refused before it fills the disk; default 50 GiB: 2.5 times the largest upload web takes (20 GiB), room for the text attachments that compress',
    },
    FORJA_FILESTORE_MAX_FILES: {
      type: 'integer',
      minimum: 1,
      default: 5_000_000,
      description: 'an uploaded filestore archive with more files and folders is refused (an ERP keeps one file per attachment; a million-attachment filestore fits five times)',
    },
    FORJA_FILESTORE_MAX_RATIO: {
      type: 'integer',
      minimum: 1,
      default: 100,
      description:
        'an uploaded filestore archive, or the dump.sql of an ERP backup .zip, that would expand to more than this many times the archive’s size (past its first 64 MiB) is refused: attachments are mostly compressed already, an archive bomb expands a thousand times',
    },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface ExecutorSettings {
  FORJA_RUNTIME: 'auto' | 'process' | 'docker';
  FORJA_ERP_COMMAND?: string;
  FORJA_ERP_ADDONS?: string;
  FORJA_OPENUPGRADE_PATH?: string;
  FORJA_ERP_ENTERPRISE_ADDONS?: string;
  FORJA_PIP_INDEX_URL?: string;
  FORJA_PIP_FIND_LINKS?: string;
  FORJA_ERP_DATABASE_URL?: string;
  FORJA_DOCKER_SOCKET: string;
  FORJA_DOCKER_IMAGE: string;
  FORJA_DOCKER_NETWORK_MODE: 'bridge' | 'host';
  FORJA_INSTANCE_DOMAIN?: string;
  FORJA_SLEEP_AFTER: string;
  FORJA_ERP_PORTS: string;
  FORJA_ERP_MEMORY_MB: number;
  FORJA_ERP_PIDS: number;
  FORJA_ERP_WORKERS: number;
  FORJA_ERP_LIMIT_MEMORY_SOFT_MB: number;
  FORJA_ERP_LIMIT_MEMORY_HARD_MB: number;
  FORJA_ERP_LIMIT_TIME_CPU_S: number;
  FORJA_ERP_LIMIT_TIME_REAL_S: number;
  FORJA_EXECUTOR_CONCURRENCY: number;
  FORJA_MIGRATION_CONCURRENCY: number;
  FORJA_UPGRADE_PATH?: string;
  FORJA_UPGRADE_UTIL_PATH?: string;
  FORJA_UPGRADE_SERVICE_URL?: string;
  FORJA_UPGRADE_SERVICE_SSH_USER: string;
  FORJA_UPGRADE_SERVICE_DATA_PATH: string;
  FORJA_HEALTH_TIMEOUT_S: number;
  FORJA_JOB_ACK_WAIT_S: number;
  FORJA_RESTORE_JOBS?: number;
  FORJA_FILESTORE_MAX_BYTES: number;
  FORJA_FILESTORE_MAX_FILES: number;
  FORJA_FILESTORE_MAX_RATIO: number;
}

/** The ERP server's workers and limits (erpOptions.ts) from the settings. */
export const erpServerSettings = (settings: ExecutorSettings): ErpServerSettings => ({
  workers: settings.FORJA_ERP_WORKERS,
  limitMemorySoftMb: settings.FORJA_ERP_LIMIT_MEMORY_SOFT_MB,
  limitMemoryHardMb: settings.FORJA_ERP_LIMIT_MEMORY_HARD_MB,
  limitTimeCpuS: settings.FORJA_ERP_LIMIT_TIME_CPU_S,
  limitTimeRealS: settings.FORJA_ERP_LIMIT_TIME_REAL_S,
});

/** Reads the executor settings from the environment; throws ConfigError naming a wrong one. */
export const loadExecutorSettings: (env?: NodeJS.ProcessEnv) => ExecutorSettings = settingsLoader<ExecutorSettings>(executorSettingsSchema);
