import { settingsLoader, type SettingsSchema } from '#shared/config/config.ts';

/** What the database admin reads of the executor's settings: where the instance databases live (README lists it with the executor's). */
export const dbAdminSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    FORJA_ERP_DATABASE_URL: {
      type: 'string',
      pattern: '^postgres(ql)?://',
      description: "the executor's PostgreSQL server for the instances' databases; the database admin connects only there",
    },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface DbAdminSettings {
  FORJA_ERP_DATABASE_URL?: string;
}

export const loadDbAdminSettings = settingsLoader<DbAdminSettings>(dbAdminSettingsSchema);
