import { resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { configSchema, type Config } from './config.schema.ts';
import type { SettingsSchema } from './settingsSchema.ts';

export type { Config } from './config.schema.ts';
export type { SettingsSchema } from './settingsSchema.ts';

/** A setting that is missing or wrong; its message is one line naming the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}


const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: true });
ajv.addKeyword({ keyword: 'isPath', schemaType: 'boolean' });

/**
 * A loader for one group of settings: reads the schema's variables from the environment, converts
 * and validates them, and makes path settings absolute (against the working directory at load).
 * Empty variables count as unset, so `FOO= npm start` falls back to the default.
 * The core settings are `loadConfig`; a process with settings of its own defines them beside it.
 */
export function settingsLoader<T>(schema: SettingsSchema): (env?: NodeJS.ProcessEnv) => T {
  const validate = ajv.compile<T>(schema);
  return (env = process.env) => {
    const candidate: Record<string, string> = {};
    for (const name of Object.keys(schema.properties)) {
      const value = env[name];
      if (value !== undefined && value.trim() !== '') candidate[name] = value.trim();
    }
    if (!validate(candidate)) throw new ConfigError(describe(schema, validate.errors?.[0], env));
    const settings: Record<string, unknown> = candidate;
    for (const [name, property] of Object.entries(schema.properties)) {
      const value = settings[name];
      if (property.isPath && typeof value === 'string') settings[name] = resolve(value);
    }
    return settings as T;
  };
}

function describe(schema: SettingsSchema, error: ErrorObject | undefined, env: NodeJS.ProcessEnv): string {
  if (!error) return 'configuration is invalid';
  if (error.keyword === 'required') {
    const name = String(error.params['missingProperty']);
    return `configuration: ${name} is required (${schema.properties[name]?.description ?? 'see README'})`;
  }
  const name = error.instancePath.replace(/^\//, '');
  return `configuration: ${name} ${error.message ?? 'is invalid'} (got ${JSON.stringify(env[name])}; ${schema.properties[name]?.description ?? 'see README'})`;
}

/** The settings every process shares (database, event store, bus, ports, logging). */
export const loadConfig: (env?: NodeJS.ProcessEnv) => Config = settingsLoader<Config>(configSchema);

/** For a process entry point: the settings, or one clear line on stderr and exit code 2. */
export function orExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  return orExit(() => loadConfig(env));
}
