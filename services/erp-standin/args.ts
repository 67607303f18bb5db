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
  /** `--proxy-mode` / `proxy_mode`: honour X-Forwarded-* headers (odoo/http.py), off by default. */
  proxyMode: boolean;
  /** `--without-demo` / `without_demo` as given (`all`, `True`, a module list), undefined when unset or false. */
  withoutDemo: string | undefined;
  /** `--with-demo` (19.0 only: demo data in new databases); an older ERP has no such option. */
  withDemo: boolean;
  /** `with_demo` in the configuration file (19.0's key; older ones ignore it as any unknown key). */
  withDemoInFile: boolean;
  /** `--workers` / `workers`: 0 is the threaded mode; more runs HTTP workers and a gevent worker. */
  workers: number;
  /** `--gevent-port` / `gevent_port` (default 8072): where the gevent worker serves `/websocket` when workers > 0. */
  geventPort: number;
  /** `-D/--data-dir` / `data_dir`, undefined for the ERP's default. */
  dataDir: string | undefined;
  /** `--limit-*` / `limit_*`: read and checked as the real ERP does (integers); the stand-in enforces none. */
  limits: Record<'memorySoft' | 'memoryHard' | 'timeCpu' | 'timeReal', number | undefined>;
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

/** An optparse `type="int"` option: a bad value is an option error, as on the real ERP. */
function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[-+]?\d+$/.test(value.trim())) throw new UsageError(`option ${flag}: invalid integer value: '${value}'`);
  return Number(value);
}

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
      args: joinedValues(argv, OPTIONS),
      strict: true,
      options: OPTIONS,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return standinOptions(values, env);
}

/**
 * Python's optparse (odoo/tools/config.py builds the command line with it) takes the word after an
 * option that has a value as that value, whatever it starts with: `--db_password -x1` sets the
 * password `-x1`. Node's parseArgs calls that ambiguous, so each such pair is joined into
 * `--name=value` first (a random password starting with `-` made the stand-in refuse what the ERP accepts).
 */
function joinedValues(argv: readonly string[], options: typeof OPTIONS): string[] {
  const takesValue = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== 'string') continue;
    takesValue.set(`--${name}`, name);
    if ('short' in option && option.short) takesValue.set(`-${option.short}`, name);
  }
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const name = takesValue.get(argv[index]!);
    if (name !== undefined && index + 1 < argv.length) {
      joined.push(`--${name}=${argv[index + 1]!}`);
      index += 1;
    } else joined.push(argv[index]!);
  }
  return joined;
}

const OPTIONS = {
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
  'with-demo': { type: 'boolean' },
  'proxy-mode': { type: 'boolean' },
  workers: { type: 'string' },
  'gevent-port': { type: 'string' },
  'limit-memory-soft': { type: 'string' },
  'limit-memory-hard': { type: 'string' },
  'limit-time-cpu': { type: 'string' },
  'limit-time-real': { type: 'string' },
  'limit-time-real-cron': { type: 'string' },
  'limit-request': { type: 'string' },
  'no-http': { type: 'boolean' },
  'upgrade-path': { type: 'string' },
  load: { type: 'string' },
  // OpenUpgrade's CI passes `--log-handler odoo.models.unlink:WARNING`; the stand-in takes and ignores it.
  'log-handler': { type: 'string', multiple: true },
  config: { type: 'string', short: 'c' },
  'no-database-list': { type: 'boolean' },
} as const;

function standinOptions(values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'], env: NodeJS.ProcessEnv): StandinOptions {
  // odoo/tools/config.py: the file's [options] first, then what the command line gives wins.
  const rcFile = rcFilePath(values.config, env);
  const file = readRcFile(rcFile);
  const text = (name: string): string | undefined => {
    const value = file.get(name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const database = values.database ?? text('db_name');
  if (!database) throw new UsageError('-d/--database is required');
  // Taken and checked like the other limits, not kept: the stand-in enforces no limit.
  integer(values['limit-request'] ?? text('limit_request'), '--limit-request');
  integer(values['limit-time-real-cron'] ?? text('limit_time_real_cron'), '--limit-time-real-cron');
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
    proxyMode: values['proxy-mode'] === true || truthy(file.get('proxy_mode') ?? false),
    withoutDemo: withoutDemo(values['without-demo'] ?? file.get('without_demo')),
    withDemo: values['with-demo'] === true,
    withDemoInFile: truthy(file.get('with_demo') ?? false),
    workers: integer(values.workers ?? text('workers'), '--workers') ?? 0,
    geventPort: port(values['gevent-port'] ?? text('gevent_port'), 8072, '--gevent-port'),
    dataDir: values['data-dir'] ?? text('data_dir'),
    limits: {
      memorySoft: integer(values['limit-memory-soft'] ?? text('limit_memory_soft'), '--limit-memory-soft'),
      memoryHard: integer(values['limit-memory-hard'] ?? text('limit_memory_hard'), '--limit-memory-hard'),
      timeCpu: integer(values['limit-time-cpu'] ?? text('limit_time_cpu'), '--limit-time-cpu'),
      timeReal: integer(values['limit-time-real'] ?? text('limit_time_real'), '--limit-time-real'),
    },
  };
}

/** `without_demo`: False, empty or unset leaves demo data on; `all`, `True` or any other value turns it off (odoo/tools/config.py). */
function withoutDemo(value: RcValue | undefined): string | undefined {
  if (value === undefined || value === false || value === '') return undefined;
  return value === true ? 'True' : value;
}

/** The default master password is `admin` (odoo/tools/config.py); `admin_passwd = False` or empty refuses them all. */
function adminPasswd(value: RcValue | undefined): string | false {
  if (value === undefined || value === true) return value === true ? 'True' : 'admin';
  return value === false || value === '' ? false : value;
}

