import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rcFilePath, readRcFile, truthy, type RcValue } from './configFile.ts';

/** The part of the `odoo-bin` command line Forja's runtimes use. */
export interface StandinOptions {
  database: string;
  install: string[];
  update: string[];
  /** `--addons-path`: absolute directories whose addon folders the ERP can install, besides its standard modules. */
  addonsPath: string[];
  stopAfterInit: boolean;
  httpPort: number;
  httpInterface: string;
  dbHost: string;
  dbPort: number;
  dbUser: string;
  dbPassword: string | undefined;
  logfile: string | undefined;
  /** `--upgrade-path`: folders of migration scripts (`<module>/<version>/pre-*.sql`…), as given (checked at start-up). */
  upgradePath: string[];
  /** `--load`: the server-wide modules; the real ERP's default is `base,web`. */
  load: string[];
  /** The configuration file read (`-c`, ODOO_RC or `~/.odoorc`), whether or not it could be read. */
  rcFile: string;
  /** `list_db`: the database manager is open; `--no-database-list` or `list_db = False` closes it. */
  listDb: boolean;
  /** `admin_passwd`, the master password: plain or a passlib hash; false or empty refuses every password. */
  adminPasswd: string | false;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const MODULE = /^[a-z][a-z0-9_]*$/;

function modules(value: string | undefined, flag: string): string[] {
  if (!value) return [];
  const names = value.split(',').map((name) => name.trim()).filter(Boolean);
  const bad = names.find((name) => !MODULE.test(name));
  if (bad) throw new UsageError(`${flag}: "${bad}" is not a module name`);
  return names;
}

const list = (value: string | undefined) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);

function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 65535) throw new UsageError(`${flag}: "${value}" is not a port`);
  return number;
}

/**
 * Parses `odoo-bin`-style arguments (`-d db -i a,b --stop-after-init --http-port 8069 …`), in both
 * forms (`-u all`, `--update=all`). `-u all` stands for every installed module.
 */
export function parseStandinArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): StandinOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        database: { type: 'string', short: 'd' },
        init: { type: 'string', short: 'i' },
        update: { type: 'string', short: 'u' },
        'stop-after-init': { type: 'boolean' },
        'http-port': { type: 'string', short: 'p' },
        'http-interface': { type: 'string' },
        db_host: { type: 'string' },
        db_port: { type: 'string' },
        db_user: { type: 'string', short: 'r' },
        db_password: { type: 'string', short: 'w' },
        logfile: { type: 'string' },
        'addons-path': { type: 'string' },
        'data-dir': { type: 'string', short: 'D' },
        'without-demo': { type: 'string' },
        'no-http': { type: 'boolean' },
        'upgrade-path': { type: 'string' },
        load: { type: 'string' },
        // OpenUpgrade's CI passes `--log-handler odoo.models.unlink:WARNING`; the stand-in takes and ignores it.
        'log-handler': { type: 'string', multiple: true },
        config: { type: 'string', short: 'c' },
        'no-database-list': { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // odoo/tools/config.py: the file's [options] first, then what the command line gives wins.
  const rcFile = rcFilePath(values.config, env);
  const file = readRcFile(rcFile);
  const text = (name: string): string | undefined => {
    const value = file.get(name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const database = values.database ?? text('db_name');
  if (!database) throw new UsageError('-d/--database is required');
  return {
    database,
    install: modules(values.init, '-i'),
    update: modules(values.update, '-u'),
    addonsPath: list(values['addons-path'] ?? text('addons_path')).map((dir) => resolve(dir)),
    stopAfterInit: values['stop-after-init'] === true,
    httpPort: port(values['http-port'] ?? text('http_port'), 8069, '--http-port'),
    httpInterface: values['http-interface'] ?? text('http_interface') ?? '127.0.0.1',
    dbHost: values.db_host ?? text('db_host') ?? '127.0.0.1',
    dbPort: port(values.db_port ?? text('db_port'), 5432, '--db_port'),
    dbUser: values.db_user ?? text('db_user') ?? 'odoo',
    dbPassword: values.db_password ?? text('db_password'),
    logfile: values.logfile ?? text('logfile'),
    upgradePath: list(values['upgrade-path'] ?? text('upgrade_path')),
    load: list(values.load ?? text('server_wide_modules') ?? 'base,web'),
    rcFile,
    listDb: values['no-database-list'] === true ? false : truthy(file.get('list_db') ?? true),
    adminPasswd: adminPasswd(file.get('admin_passwd')),
  };
}

/** The default master password is `admin` (odoo/tools/config.py); `admin_passwd = False` or empty refuses them all. */
function adminPasswd(value: RcValue | undefined): string | false {
  if (value === undefined || value === true) return value === true ? 'True' : 'admin';
  return value === false || value === '' ? false : value;
}

