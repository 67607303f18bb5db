import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '#shared/config/config.ts';
import { erpConfigFile } from '../erpConfigFile.ts';
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
 * The arguments every ERP run gets. The database password goes in PGPASSWORD (see `erpEnv`), not
 * on the command line, where any local user could read it in /proc. `-c`: the file `spawnErp`
 * writes first, which closes the database manager (erpConfigFile.ts). No --logfile: the ERP would
 * open it by path in a folder it could write; its output goes to the log Forja opened (erpProcess.ts).
 */
export function erpArgs(spec: ErpRunSpec): string[] {
  return [
    '-c', erpConfigFile(spec.dataDir),
    '-d', spec.database,
    '--db_host', spec.db.host,
    '--db_port', String(spec.db.port),
    '--db_user', spec.db.user,
    '--data-dir', resolve(spec.dataDir),
  ];
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
  const env: NodeJS.ProcessEnv = { PGPASSWORD: spec.db.password, FORJA_STANDIN_VERSION: spec.erpVersion };
  for (const name of PASSED_THROUGH) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}
