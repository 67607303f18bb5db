import { settingsLoader, type SettingsSchema } from '#shared/config/config.ts';

/** What monitoring reads of the executor's settings: where the instance databases live (README lists it with the executor's). */
export const monitoringSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    FORJA_ERP_DATABASE_URL: {
      type: 'string',
      pattern: '^postgres(ql)?://',
      description: "the executor's PostgreSQL server for the instances' databases; monitoring creates its pg_monitor role there",
    },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface MonitoringSettings {
  FORJA_ERP_DATABASE_URL?: string;
}

export const loadMonitoringSettings = settingsLoader<MonitoringSettings>(monitoringSettingsSchema);
