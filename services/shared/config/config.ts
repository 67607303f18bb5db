import { Ajv, type ErrorObject } from 'ajv';
import { configSchema, type Config } from './config.schema.ts';

export type { Config } from './config.schema.ts';

/** A setting that is missing or wrong; its message is one line naming the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: true });
const validate = ajv.compile<Config>(configSchema);

/**
 * Reads every setting from the environment and validates it against `configSchema`. Empty
 * variables count as unset, so `FOO= npm start` falls back to the default.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const candidate: Record<string, string> = {};
  for (const name of Object.keys(configSchema.properties)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') candidate[name] = value.trim();
  }
  if (!validate(candidate)) throw new ConfigError(describe(validate.errors?.[0], env));
  return candidate as unknown as Config;
}

function describe(error: ErrorObject | undefined, env: NodeJS.ProcessEnv): string {
  if (!error) return 'configuration is invalid';
  if (error.keyword === 'required') {
    const name = String(error.params['missingProperty']);
    return `configuration: ${name} is required (${propertyDescription(name)})`;
  }
  const name = error.instancePath.replace(/^\//, '');
  const got = env[name];
  return `configuration: ${name} ${error.message ?? 'is invalid'} (got ${JSON.stringify(got)}; ${propertyDescription(name)})`;
}

function propertyDescription(name: string): string {
  const property = (configSchema.properties as Record<string, { description?: string }>)[name];
  return property?.description ?? 'see README';
}

/** For a process entry point: the config, or one clear line on stderr and exit code 2. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}
