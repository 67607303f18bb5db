import { settingsLoader, type SettingsSchema } from '#shared/config/config.ts';

/** Web's web-shell settings. The ERP database and docker ones are the executor's, read here too: the shell reaches what the ERP reaches. */
export const shellSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    FORJA_SHELL_IDLE: {
      type: 'string',
      pattern: '^[0-9]+(s|m|h)$',
      default: '15m',
      description: 'a web shell with no input for this long is closed, saying so in the terminal (90s, 15m, 2h)',
    },
    FORJA_ERP_DATABASE_URL: {
      type: 'string',
      pattern: '^postgres(ql)?://',
      description: "the executor's server for instance databases: the shell's PGHOST and PGPORT; unset = the private cluster under FORJA_DATA_DIR/erp-postgres",
    },
    FORJA_DOCKER_SOCKET: { type: 'string', minLength: 1, default: '/var/run/docker.sock', isPath: true, description: "the executor's Docker Engine API socket: shells of docker instances are execs in their containers" },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface ShellSettings {
  FORJA_SHELL_IDLE: string;
  FORJA_ERP_DATABASE_URL?: string;
  FORJA_DOCKER_SOCKET: string;
}

export const loadShellSettings = settingsLoader<ShellSettings>(shellSettingsSchema);
