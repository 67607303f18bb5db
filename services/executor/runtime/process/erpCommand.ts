import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '#shared/config/config.ts';
import { erpConfigFile } from '../erpConfigFile.ts';
import { erpOptions, type ErpRunPlace } from '../erpOptions.ts';
import type { ErpRunSpec } from '../runtime.ts';

/** The ERP stand-in shipped in this repository: what runs when FORJA_ERP_COMMAND is unset. */
export const STANDIN_COMMAND = fileURLToPath(new URL('../../../erp-standin/odoo-bin', import.meta.url));

/** Versions end up in a path, so they stay one plain path segment. */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z._+-]{0,31}$/;

/** The command for one ERP version: FORJA_ERP_COMMAND with `{version}` replaced, as an absolute path when it can be found. */
export function erpCommandFor(template: string | undefined, erpVersion: string): string {
  if (template === undefined) return STANDIN_COMMAND;
  if (!VERSION.test(erpVersion)) throw new ConfigError(`FORJA_ERP_COMMAND: ${JSON.stringify(erpVersion)} is not an ERP version`);
  const command = template.replaceAll('{version}', erpVersion);
  return command.includes('/') ? resolve(command) : (onPath(command) ?? command);
}

function onPath(name: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find((candidate) => executableFile(candidate));
}

function executableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Throws ConfigError naming the setting and the path unless `command` is an executable file. */
export function checkCommand(command: string, erpVersion: string): void {
  const what = `FORJA_ERP_COMMAND: ${command} (ERP version ${erpVersion})`;
  let isFile: boolean;
  try {
    isFile = statSync(command).isFile();
  } catch {
    throw new ConfigError(`${what} does not exist`);
  }
  if (!isFile) throw new ConfigError(`${what} is not a file`);
  if (!executableFile(command)) throw new ConfigError(`${what} is not executable`);
}

export function isStandin(command: string): boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  return real(command) === real(STANDIN_COMMAND);
}

/**
 * The arguments every ERP run gets: `-c`, the file `spawnErp` writes first, which holds every
 * option (erpConfigFile.ts, erpOptions.ts), the database password included: nothing any local user
 * could read in /proc. `-d` repeats the file's db_name because the pid file tells its server from
 * a reused pid by it (pidFile.ts, isServerAlive). No --logfile: the ERP would open it by path in a folder it could write; its
 * output goes to the log Forja opened (erpProcess.ts).
 */
export function erpArgs(spec: ErpRunSpec): string[] {
  return ['-c', erpConfigFile(spec.dataDir), '-d', spec.database];
}

/** The process runtime's options: the host's own paths, and the whole addons path (addonsPath.ts). */
export function processConfigOptions(spec: ErpRunSpec, place: Omit<ErpRunPlace, 'dataDir'>): Record<string, string> {
  return {
    ...erpOptions(spec, { ...place, dataDir: resolve(spec.dataDir) }),
    ...erpConfigOptions(spec),
  };
}

/**
 * What the configuration file adds for this run: the whole addons path (addonsPath.ts), in the
 * file rather than as `--addons-path`, where a command line would show it to every local user.
 */
export const erpConfigOptions = (spec: ErpRunSpec): Record<string, string> => (spec.addonsPath.length > 0 ? { addons_path: spec.addonsPath.join(',') } : {});

/** Variables the ERP may need; the executor's own (master key, service token, URLs) stay out of customer code's reach. */
const PASSED_THROUGH = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];

export function erpEnv(spec: ErpRunSpec): NodeJS.ProcessEnv {
  // The ERP stand-in takes its version from here (a real ERP ignores it): module versions and upgrades follow it.
  // No PGPASSWORD: the ERP reads db_password from its configuration file.
  const env: NodeJS.ProcessEnv = { FORJA_STANDIN_VERSION: spec.erpVersion };
  for (const name of PASSED_THROUGH) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}
