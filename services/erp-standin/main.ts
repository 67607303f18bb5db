import { appendFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { constants } from 'node:os';
import { parseStandinArgs, UsageError, type StandinOptions } from './args.ts';
import { DatabaseManager } from './databaseManager.ts';
import { demoForNewDatabase } from './demo.ts';
import { standinServers } from './http.ts';
import { erpAddonsPath, modulesOn } from './knownModules.ts';
import { invocationOf, runCommand } from './neutralize.ts';
import { MigrationError } from './migration.ts';
import { checkExternalDependencies, ExternalDependencyError, pythonDependenciesOf } from './pythonDependencies.ts';
import { initializeDatabase, type StandinSetup } from './modules.ts';
import pg from 'pg';
import { endSessions } from './sessions.ts';
import { checkUpgradePath } from './upgradePath.ts';
import { standinVersion } from './version.ts';

/**
 * The ERP stand-in: the part of the `odoo-bin` command line Forja calls (`-d`, `-i`, `-u`,
 * `--stop-after-init`, `--http-port`, `--db_host`, `--upgrade-path`, `--load`, `-c`, `--no-database-list`…)
 * and reads the configuration file as the real one does (configFile.ts). It really connects to
 * PostgreSQL, keeps `ir_module_module`, migrates between versions as OpenUpgrade does, writes an
 * ERP-style log and serves `/web/health`, `/web/login`, `/websocket` and the database manager (`/web/database/*`,
 * open by default with the master password `admin`, as on the real ERP). Like the real threaded
 * server it listens first and loads the database while already answering `/web/health`. It is a test double of the ERP, for the
 * tests and the first-run demo, not of Forja's own code. Like the real ERP it installs only modules
 * it can find: its standard ones and the addons on `--addons-path`. It plays the ERP version in
 * FORJA_STANDIN_VERSION (see version.ts).
 */
function fail(message: string, code: number): never {
  process.stderr.write(`odoo-bin (stand-in): ${message}\n`);
  process.exit(code);
}

/** An ERP-style log line, to the logfile when there is one (odoo/netsvc.py), else to stdout. */
const logTo = (opts: Pick<StandinOptions, 'logfile' | 'database'>) => (level: string, logger: string, message: string): void => {
  const at = new Date().toISOString().replace('T', ' ').replace('Z', '').replace('.', ',');
  const line = `${at} ${process.pid} ${level} ${opts.database} ${logger}: ${message}\n`;
  if (opts.logfile) appendFileSync(opts.logfile, line);
  else process.stdout.write(line);
};

// `odoo-bin neutralize …` and other commands (neutralize.ts); without one, the server.
const invocation = invocationOf(process.argv.slice(2));
if (invocation && invocation.command !== 'server') {
  const write = (stream: NodeJS.WriteStream) => (text: string) => void stream.write(text);
  process.exit(await runCommand(invocation, process.env, { stdout: write(process.stdout), stderr: write(process.stderr), log: logTo }));
}

let options: StandinOptions;
try {
  options = parseStandinArgs(invocation ? [...invocation.leading, ...invocation.args] : process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  fail(error.message, 2);
}

const log = logTo(options);

let setup: StandinSetup;
try {
  const version = standinVersion(process.env);
  const addonsPath = erpAddonsPath(options.addonsPath, version, (message) => log('WARNING', 'odoo.tools.config', message));
  // The interpreter odoo-bin ran under (odoo-bin passes it); without one, python3 on PATH.
  const python = process.env.FORJA_STANDIN_PYTHON || 'python3';
  const checkDependencies = (modules: readonly string[], action: 'install' | 'upgrade') => checkExternalDependencies(python, version, modules, (name) => pythonDependenciesOf(addonsPath, name), action);
  setup = { known: modulesOn(addonsPath), version, upgradePath: checkUpgradePath(options.upgradePath), demo: demoForNewDatabase(options, version), checkDependencies };
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  log('ERROR', 'odoo.tools.config', error.message);
  fail(error.message, 2);
}

const connection = { host: options.dbHost, port: options.dbPort, user: options.dbUser, password: options.dbPassword };
let markLoaded!: () => void;
const loaded = new Promise<void>((resolve) => (markLoaded = resolve));
let isLoaded = false;
const servers = standinServers(
  {
    database: options.database,
    loaded,
    proxyMode: options.proxyMode,
    workers: options.workers,
    geventPort: options.geventPort,
    version: setup.version,
    dbServerUp: () => dbServerUp(connection),
  },
  new DatabaseManager(options, log),
  log,
);
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    stopping = true;
    log('INFO', 'odoo.service.server', `Initiating shutdown (${signal})`);
    if (isLoaded) {
      servers.close(() => process.exit(0));
      return;
    }
    // Mid-initialization: the statements this process runs end with it (their transactions roll back).
    servers.close(() => undefined);
    void endSessions(connection)
      .then((pids) => pids.length > 0 && log('INFO', 'odoo.sql_db', `terminated the running statements of backends ${pids.join(', ')}`))
      .catch((error: unknown) => log('ERROR', 'odoo.sql_db', `cannot end the running statements: ${(error as Error).message}`))
      .finally(() => process.exit(128 + constants.signals[signal]));
  });
}

log('INFO', 'odoo', `ERP stand-in${setup.version ? ` ${setup.version}` : ''} starting (database ${options.database} on ${options.dbHost}:${options.dbPort})`);
if (!options.stopAfterInit) {
  // odoo/service/server.py: the threaded server starts HTTP, then loads the registry (preload_registries);
  // with workers, the prefork server also starts the gevent worker on gevent_port.
  await listen(servers.http, options.httpPort, 'HTTP service (werkzeug)');
  if (servers.gevent) await listen(servers.gevent, options.geventPort, 'Evented Service (longpolling)');
}
try {
  await initializeDatabase(options, setup, log);
} catch (error) {
  if (stopping) await new Promise(() => undefined); // the signal handler exits
  if (error instanceof MigrationError) {
    log('ERROR', 'odoo.modules.migration', error.message);
    log('CRITICAL', 'odoo.service.server', `Failed to initialize database \`${options.database}\`.`);
    fail(error.message, 1);
  }
  if (error instanceof ExternalDependencyError) {
    // odoo/service/server.py (preload_registries): the traceback ends with the UserError; the run exits -1 (255).
    log('CRITICAL', 'odoo.service.server', `Failed to initialize database \`${options.database}\`.\nTraceback (most recent call last):\nodoo.exceptions.UserError: ${error.message}`);
    fail(error.message, 255);
  }
  log('ERROR', 'odoo.sql_db', `cannot initialize database ${options.database}: ${(error as Error).message}`);
  fail(`cannot initialize database ${options.database}: ${(error as Error).message}`, 1);
}
if (options.stopAfterInit) {
  log('INFO', 'odoo.service.server', 'Initiating shutdown (--stop-after-init)');
  process.exit(0);
}
isLoaded = true;
markLoaded();
log('INFO', 'odoo.modules.loading', `Registry loaded for database ${options.database}`);

function listen(server: Server, port: number, what: string): Promise<void> {
  return new Promise((resolve) => {
    server.once('error', (error) => {
      log('ERROR', 'odoo.service.server', `${what} failed: ${error.message}`);
      process.exit(1);
    });
    server.listen(port, options.httpInterface, () => {
      log('INFO', 'odoo.service.server', `${what} running on ${options.httpInterface}:${port}`);
      resolve();
    });
  });
}

/** `/web/health?db_server_status=1`: a connection to the server's `postgres` database (odoo.sql_db.db_connect('postgres')). */
async function dbServerUp(config: pg.ClientConfig): Promise<boolean> {
  const client = new pg.Client({ ...config, database: 'postgres', connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
