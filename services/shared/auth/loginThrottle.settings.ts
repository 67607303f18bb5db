import { settingsLoader, type SettingsSchema } from '../config/config.ts';

/** How hard guessing passwords is made, for web's sign-in form and the API's HTTP Basic alike. */
export const loginThrottleSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    FORJA_LOGIN_ACCOUNT_FAILURES: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 5,
      description: 'failed sign-ins an account takes before it is locked for a while, whoever tries',
    },
    FORJA_LOGIN_ADDRESS_FAILURES: {
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
      default: 20,
      description: 'failed sign-ins a client address (an IPv6 /64) takes, over all accounts, before it is locked for a while',
    },
    FORJA_LOGIN_LOCK_S: { type: 'integer', minimum: 1, maximum: 3600, default: 2, description: 'seconds of the first lock; each further failure doubles it' },
    FORJA_LOGIN_MAX_LOCK_S: { type: 'integer', minimum: 1, maximum: 86_400, default: 900, description: 'longest lock, in seconds' },
  },
  required: [],
} as const satisfies SettingsSchema;

export interface LoginThrottleSettings {
  FORJA_LOGIN_ACCOUNT_FAILURES: number;
  FORJA_LOGIN_ADDRESS_FAILURES: number;
  FORJA_LOGIN_LOCK_S: number;
  FORJA_LOGIN_MAX_LOCK_S: number;
}

export const loadLoginThrottleSettings = settingsLoader<LoginThrottleSettings>(loginThrottleSettingsSchema);
