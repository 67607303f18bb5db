import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseStandinArgs, UsageError, type StandinOptions } from './args.ts';
import { erpAddonsPath } from './knownModules.ts';
import { connectSession } from './sessions.ts';
import { majorOf, standinVersion } from './version.ts';

type Log = (level: string, logger: string, message: string) => void;

/** The command line split as the real `odoo-bin` splits it (odoo/cli/command.py, `main`). */
export interface Invocation {
  command: string;
  /** What follows the command, after the `--addons-path=…` that came before it, if any. */
  args: string[];
  /** The `--addons-path=…` given before the command, or nothing. */
  leading: string[];
}

/**
 * odoo/cli/command.py (16.0–19.0): a first argument that does not start with `-` names a
 * command; only `--addons-path=…` (in that one-word form) may come before it. No command means
 * `server`, what the stand-in does in main.ts.
 */
export function invocationOf(argv: readonly string[]): Invocation | null {
  let args = [...argv];
  let leading: string[] = [];
  if (args.length > 1 && args[0]!.startsWith('--addons-path=') && !args[1]!.startsWith('-')) {
    leading = [args[0]!];
    args = args.slice(1);
  }
  if (args.length === 0 || args[0]!.startsWith('-')) return null;
  return { command: args[0]!, args: args.slice(1), leading };
}

/** The command exists from 16.0 (odoo/cli/neutralize.py); a stand-in playing no version has it too. */
export const hasNeutralize = (version: string | undefined): boolean => version === undefined || majorOf(version) >= 16;

/**
 * Runs `odoo-bin <command> …` and returns the exit code. Only `server` (the default) and
 * `neutralize` exist here; any other name ends as the real one ends: `sys.exit("Unknown command
 * 'x'")`, the message on stderr and exit code 1. So does `neutralize` before 16.0.
 */
export async function runCommand(invocation: Invocation, env: NodeJS.ProcessEnv, out: { stdout: (text: string) => void; stderr: (text: string) => void; log: (options: StandinOptions) => Log }): Promise<number> {
  let version: string | undefined;
  try {
    version = standinVersion(env);
  } catch (error) {
    out.stderr(`odoo-bin (stand-in): ${(error as Error).message}\n`);
    return 2;
  }
  if (invocation.command !== 'neutralize' || !hasNeutralize(version)) {
    out.stderr(`Unknown command '${invocation.command}'\n`);
    return 1;
  }
  let args = [...invocation.leading, ...invocation.args];
  if (version !== undefined && majorOf(version) >= 19) {
    const own = commandOptions19(invocation.args);
    if (typeof own === 'string') {
      out.stderr(`usage: odoo-bin [--addons-path=PATH,...] neutralize [-h] [-c CONFIG] [-d DB_NAME] [--stdout]\nodoo-bin [--addons-path=PATH,...] neutralize: error: ${own}\n`);
      return 2;
    }
    args = [...invocation.leading, ...own];
  }
  return neutralize(args, env, out);
}

/**
 * 19.0's command has its own argparse parser (odoo/cli/neutralize.py): `-c`, `-d` and `--stdout`
 * only; a server option after the command (`--db_host`…) is an error, exit 2. The rest comes from
 * the configuration file, or from `--addons-path=…` before the command. Returns the arguments to
 * read the configuration with, or argparse's complaint.
 */
function commandOptions19(argv: readonly string[]): string[] | string {
  try {
    const { values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: { config: { type: 'string', short: 'c' }, database: { type: 'string', short: 'd' }, stdout: { type: 'boolean' } } });
    return [...(values.config ? ['-c', values.config] : []), ...(values.database ? ['-d', values.database] : []), ...(values.stdout ? ['--stdout'] : [])];
  } catch {
    return `unrecognized arguments: ${argv.filter((arg) => arg.startsWith('-') && !/^(-c|-d|--config|--database|--stdout)(=|$)/.test(arg)).join(' ') || argv.join(' ')}`;
  }
}

/**
 * `odoo-bin neutralize -d DB [--stdout]` as odoo/cli/neutralize.py and odoo/modules/neutralize.py
 * (16.0–19.0) do it: the `data/neutralize.sql` of every module in state installed, to upgrade or
 * to remove, read from the module's folder on the addons path, run in one transaction (the
 * flag `database.is_neutralized` is base's own file's work, not the command's). `--stdout` prints
 * them between BEGIN; and COMMIT; instead. No database: an error and exit 1; a failing statement:
 * CRITICAL "THE DATABASE IS NOT NEUTRALIZED!", nothing applied, exit 1. The server options
 * (`-c`, `--db_host`, `--addons-path`…) are read as by the server: 16.0–18.0 parse them with the
 * server's option parser; 19.0 takes only `-c` and `-d` (commandOptions19).
 */
async function neutralize(argv: string[], env: NodeJS.ProcessEnv, out: { stdout: (text: string) => void; stderr: (text: string) => void; log: (options: StandinOptions) => Log }): Promise<number> {
  const toStdout = argv.includes('--stdout');
  let options: StandinOptions;
  try {
    options = parseStandinArgs(argv.filter((arg) => arg !== '--stdout'), env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (/-d\/--database is required/.test(error.message)) {
      out.stderr(`ERROR ? odoo.cli.neutralize: Neutralize command needs a database name. Use "-d" argument\n`);
      return 1;
    }
    out.stderr(`odoo-bin neutralize: error: ${error.message}\n`);
    return 2;
  }
  const log = out.log(options);
  let addonsPath: string[];
  try {
    // The addons path is checked and completed as by the server (16.0/17.0 replace the default).
    addonsPath = erpAddonsPath(options.addonsPath, standinVersion(env), (message) => log('WARNING', 'odoo.tools.config', message));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    out.stderr(`odoo-bin neutralize: error: ${error.message}\n`);
    return 2;
  }
  if (!toStdout) log('INFO', 'odoo.cli.neutralize', `Starting ${options.database} database neutralization`);
  const connection = { host: options.dbHost, port: options.dbPort, user: options.dbUser, password: options.dbPassword, database: options.database };
  try {
    const client = await connectSession(connection);
    try {
      const { rows } = await client.query<{ name: string }>(`select name from ir_module_module where state in ('installed', 'to upgrade', 'to remove') order by id`);
      const queries = rows.map((row) => neutralizationOf(row.name, addonsPath)).filter((query): query is string => query !== undefined);
      if (toStdout) {
        out.stdout(['BEGIN;', ...queries.map((query) => `${query.replace(/;+$/, '')};`), 'COMMIT;'].join('\n') + '\n');
        return 0;
      }
      await client.query('begin');
      try {
        for (const query of queries) await client.query(query);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      }
    } finally {
      await client.end();
    }
  } catch (error) {
    log('ERROR', 'odoo.sql_db', (error as Error).message);
    log('CRITICAL', 'odoo.cli.neutralize', 'An error occurred during the neutralization. THE DATABASE IS NOT NEUTRALIZED!');
    return 1;
  }
  log('INFO', 'odoo.modules.neutralize', 'Neutralization finished');
  return 0;
}

/**
 * The module's `data/neutralize.sql`, trimmed, from the first folder that holds the module
 * (odoo/modules/module.py, get_module_resource / file_open: the addons path in order), or
 * undefined when it has none or the file is empty.
 */
function neutralizationOf(module: string, addonsPath: readonly string[]): string | undefined {
  for (const dir of addonsPath) {
    if (!statSync(join(dir, module), { throwIfNoEntry: false })?.isDirectory()) continue;
    const file = join(dir, module, 'data', 'neutralize.sql');
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
    return readFileSync(file, 'utf8').trim() || undefined;
  }
  return undefined;
}
