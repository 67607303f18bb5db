import { appendFileSync } from 'node:fs';
import { parseStandinArgs, UsageError } from './args.ts';
import { standinServer } from './http.ts';
import { knownModules } from './knownModules.ts';
import { initializeDatabase } from './modules.ts';

/**
 * The ERP stand-in: the part of the `odoo-bin` command line Forja calls (`-d`, `-i`, `-u`,
 * `--stop-after-init`, `--http-port`, `--db_host`…). It really connects to PostgreSQL, keeps
 * `ir_module_module`, writes an ERP-style log and serves `/web/health` and `/web/login`. It is a
 * test double of the ERP, for the tests and the first-run demo, not of Forja's own code. Like the
 * real ERP it installs only modules it can find: its standard ones and the addons on `--addons-path`.
 */
let options;
let known: string[];
try {
  options = parseStandinArgs(process.argv.slice(2));
  known = knownModules(options.addonsPath);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`odoo-bin (stand-in): ${error.message}\n`);
  process.exit(2);
}

const logfile = options.logfile;
function log(level: string, logger: string, message: string): void {
  const at = new Date().toISOString().replace('T', ' ').replace('Z', '').replace('.', ',');
  const line = `${at} ${process.pid} ${level} ${options!.database} ${logger}: ${message}\n`;
  if (logfile) appendFileSync(logfile, line);
  else process.stdout.write(line);
}

log('INFO', 'odoo', `ERP stand-in starting (database ${options.database} on ${options.dbHost}:${options.dbPort})`);
try {
  await initializeDatabase(options, known, log);
} catch (error) {
  log('ERROR', 'odoo.sql_db', `cannot initialize database ${options.database}: ${(error as Error).message}`);
  process.stderr.write(`odoo-bin (stand-in): cannot initialize database ${options.database}: ${(error as Error).message}\n`);
  process.exit(1);
}
if (options.stopAfterInit) {
  log('INFO', 'odoo.service.server', 'Initiating shutdown (--stop-after-init)');
  process.exit(0);
}

const server = standinServer(options.database, log);
server.on('error', (error) => {
  log('ERROR', 'odoo.service.server', `HTTP service failed: ${error.message}`);
  process.exit(1);
});
server.listen(options.httpPort, options.httpInterface, () => log('INFO', 'odoo.service.server', `HTTP service (werkzeug) running on ${options.httpInterface}:${options.httpPort}`));
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log('INFO', 'odoo.service.server', `Initiating shutdown (${signal})`);
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
