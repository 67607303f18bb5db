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

/**
 * The command line for one ERP version: FORJA_ERP_COMMAND with `{version}` replaced, split on
 * whitespace into a program and its first arguments (`/opt/venv/{version}/bin/python
 * /opt/odoo/{version}/odoo-bin`), so no part may contain a space. The program is made absolute
 * (searched on PATH when it has no slash), as is every argument that is a path.
 */
export function erpCommandFor(template: string | undefined, erpVersion: string): string[] {
  if (template === undefined) return [STANDIN_COMMAND];
  if (!VERSION.test(erpVersion)) throw new ConfigError(`FORJA_ERP_COMMAND: ${JSON.stringify(erpVersion)} is not an ERP version`);
  const [program = '', ...args] = template.replaceAll('{version}', erpVersion).trim().split(/\s+/);
  return [program.includes('/') ? resolve(program) : (onPath(program) ?? program), ...args.map((arg) => (arg.includes('/') ? resolve(arg) : arg))];
}

/**
 * The command line run inside an instance's own virtualenv (pythonEnv/instanceVenv.ts): its
 * interpreter replaces the command's program when the command is an interpreter and a script
 * (`python odoo-bin` → `<venv>/bin/python odoo-bin`), and goes in front of a command that is a
 * script alone (`odoo-bin` → `<venv>/bin/python odoo-bin`). No venv: the command as it is.
 */
export function withPython(command: readonly string[], python: string | null): string[] {
  if (python === null) return [...command];
  return command.length > 1 ? [python, ...command.slice(1)] : [python, ...command];
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

/**
 * Throws ConfigError naming the setting and the path unless the command's program is an executable
 * file and each argument that is a path names an existing file (the script an interpreter runs).
 */
export function checkCommand(command: readonly string[], erpVersion: string): void {
  const [program = '', ...args] = command;
  const what = (path: string) => `FORJA_ERP_COMMAND: ${path} (ERP version ${erpVersion})`;
  let isFile: boolean;
  try {
    isFile = statSync(program).isFile();
  } catch {
    throw new ConfigError(`${what(program)} does not exist`);
  }
  if (!isFile) throw new ConfigError(`${what(program)} is not a file`);
  if (!executableFile(program)) throw new ConfigError(`${what(program)} is not executable`);
  for (const arg of args.filter((arg) => arg.startsWith('/'))) {
    if (statSync(arg, { throwIfNoEntry: false })?.isFile() !== true) throw new ConfigError(`${what(arg)} is not a file`);
  }
}

/** True when the command runs the stand-in: alone, or as the script an interpreter runs. */
export function isStandin(command: string | readonly string[]): boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const parts = typeof command === 'string' ? command.trim().split(/\s+/) : command;
  return parts.some((part) => part.includes('/') && real(part) === real(STANDIN_COMMAND));
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
  const env: NodeJS.ProcessEnv = { ...spec.env, FORJA_STANDIN_VERSION: spec.erpVersion };
  for (const name of PASSED_THROUGH) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}
