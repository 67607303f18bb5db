import { appendFileSync } from 'node:fs';
import { constants } from 'node:os';
import { parseStandinArgs, UsageError, type StandinOptions } from './args.ts';
import { DatabaseManager } from './databaseManager.ts';
import { standinServer } from './http.ts';
import { knownModules } from './knownModules.ts';
import { MigrationError } from './migration.ts';
import { checkExternalDependencies, ExternalDependencyError, pythonDependenciesOf } from './pythonDependencies.ts';
import { initializeDatabase, type StandinSetup } from './modules.ts';
import { endSessions } from './sessions.ts';
import { checkUpgradePath } from './upgradePath.ts';
import { standinVersion } from './version.ts';

/**
 * The ERP stand-in: the part of the `odoo-bin` command line Forja calls (`-d`, `-i`, `-u`,
 * `--stop-after-init`, `--http-port`, `--db_host`, `--upgrade-path`, `--load`, `-c`, `--no-database-list`…)
 * and reads the configuration file as the real one does (configFile.ts). It really connects to
 * PostgreSQL, keeps `ir_module_module`, migrates between versions as OpenUpgrade does, writes an
 * ERP-style log and serves `/web/health`, `/web/login` and the database manager (`/web/database/*`,
 * open by default with the master password `admin`, as on the real ERP). It is a test double of the ERP, for the
 * tests and the first-run demo, not of Forja's own code. Like the real ERP it installs only modules
 * it can find: its standard ones and the addons on `--addons-path`. It plays the ERP version in
 * FORJA_STANDIN_VERSION (see version.ts).
 */
function fail(message: string, code: number): never {
  process.stderr.write(`odoo-bin (stand-in): ${message}\n`);
  process.exit(code);
}

let options: StandinOptions;
try {
  options = parseStandinArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  fail(error.message, 2);
}

const logfile = options.logfile;
function log(level: string, logger: string, message: string): void {
  const at = new Date().toISOString().replace('T', ' ').replace('Z', '').replace('.', ',');
  const line = `${at} ${process.pid} ${level} ${options.database} ${logger}: ${message}\n`;
  if (logfile) appendFileSync(logfile, line);
  else process.stdout.write(line);
}

let setup: StandinSetup;
try {
  const version = standinVersion(process.env);
  // The interpreter odoo-bin ran under (odoo-bin passes it); without one, python3 on PATH.
  const python = process.env.FORJA_STANDIN_PYTHON || 'python3';
  const checkDependencies = (modules: readonly string[], action: 'install' | 'upgrade') => checkExternalDependencies(python, version, modules, (name) => pythonDependenciesOf(options.addonsPath, name), action);
  setup = { known: knownModules(options.addonsPath), version, upgradePath: checkUpgradePath(options.upgradePath), checkDependencies };
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  log('ERROR', 'odoo.tools.config', error.message);
  fail(error.message, 2);
}

const connection = { host: options.dbHost, port: options.dbPort, user: options.dbUser, password: options.dbPassword };
const server = standinServer(options.database, new DatabaseManager(options, log), log);
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    stopping = true;
    log('INFO', 'odoo.service.server', `Initiating shutdown (${signal})`);
    if (server.listening) {
      server.close(() => process.exit(0));
      server.closeAllConnections();
      return;
    }
    // Mid-initialization: the statements this process runs end with it (their transactions roll back).
    void endSessions(connection)
      .then((pids) => pids.length > 0 && log('INFO', 'odoo.sql_db', `terminated the running statements of backends ${pids.join(', ')}`))
      .catch((error: unknown) => log('ERROR', 'odoo.sql_db', `cannot end the running statements: ${(error as Error).message}`))
      .finally(() => process.exit(128 + constants.signals[signal]));
  });
}

log('INFO', 'odoo', `ERP stand-in${setup.version ? ` ${setup.version}` : ''} starting (database ${options.database} on ${options.dbHost}:${options.dbPort})`);
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

server.on('error', (error) => {
  log('ERROR', 'odoo.service.server', `HTTP service failed: ${error.message}`);
  process.exit(1);
});
server.listen(options.httpPort, options.httpInterface, () => log('INFO', 'odoo.service.server', `HTTP service (werkzeug) running on ${options.httpInterface}:${options.httpPort}`));
