import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readModelOf, type ReadModel } from '#projections/readModel.ts';
import { freePort, isPortFree } from '#shared/local/freePort.ts';
import { ensureSystemUser } from '#shared/local/systemUser.ts';
import type { Logger } from '#shared/log.ts';
import type { ForjaProcess, StartProcess } from '#shared/platform/process.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { answers200, startChildTool, type ChildTool } from '#shared/local/childTool.ts';
import { erpServerAdminUrl } from '#shared/instanceDatabase/erpServerUrl.ts';
import { monitoringAuthorization, monitoringSecret } from '#shared/monitoring/monitoringSecret.ts';
import { ensureMonitoringRole } from './erpDatabaseSource.ts';
import { startInstanceExporter } from './instanceExporter.ts';
import { loadMonitoringSettings } from './monitoring.settings.ts';
import { writeMonitoringWebFiles } from './monitoringWebConfig.ts';
import { loopbackAddress, prometheusConfig, type ScrapeTarget } from './prometheusConfig.ts';

/** The path web proxies Prometheus under; Prometheus serves its UI and API below it itself. */
export const MONITORING_PATH = '/monitoring';
export const PROMETHEUS_BIN = '/usr/bin/prometheus';
export const POSTGRES_EXPORTER_BIN = '/usr/bin/prometheus-postgres-exporter';
/** Not root: Prometheus and the exporter parse what others send them (scrapes, queries). */
const MONITORING_OS_USER = 'forja-monitoring';
const READY_TIMEOUT_MS = 30_000;

export interface MonitoringOptions {
  port: number;
  scrapeIntervalS: number;
  /** FORJA_DATA_DIR: the configuration and the time series go to its `monitoring/` folder. */
  dataDir: string;
  /** Forja's own `/metrics` endpoints. */
  forjaTargets: ScrapeTarget[];
  readModel: ReadModel;
  /** The instance databases' server (admin), for the PostgreSQL exporter's role; undefined: no database metrics. */
  erpDatabaseAdminUrl: string | undefined;
  masterKey: Buffer | string;
  prometheusBin?: string;
  postgresExporterBin?: string;
}

const off = (why: string): ForjaProcess => ({ name: 'monitoring', describe: () => [why], stop: async () => {} });

/** Who the tools run as: a system user of their own as root, else us. */
function toolAccount(dir: string): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const user = ensureSystemUser(MONITORING_OS_USER);
  const chownTree = (path: string) => {
    chownSync(path, user.uid, user.gid);
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) chownTree(join(path, entry.name));
      else if (entry.isFile()) chownSync(join(path, entry.name), user.uid, user.gid);
    }
  };
  chownTree(dir);
  return { uid: user.uid, gid: user.gid };
}

/** The PostgreSQL exporter on a free loopback port, as the monitoring role; undefined (logged) when it cannot run. */
async function startPostgresExporter(options: MonitoringOptions, account: { uid?: number; gid?: number }, webConfigFile: string, logger: Logger): Promise<{ tool: ChildTool; address: string } | undefined> {
  const bin = options.postgresExporterBin ?? POSTGRES_EXPORTER_BIN;
  if (!options.erpDatabaseAdminUrl || !existsSync(bin)) {
    logger.warn({ bin }, 'no database metrics: the PostgreSQL exporter or the instance databases\' server is missing');
    return undefined;
  }
  try {
    const url = await ensureMonitoringRole(options.erpDatabaseAdminUrl, options.masterKey);
    const address = `127.0.0.1:${await freePort()}`;
    const tool = await startChildTool({
      label: 'the PostgreSQL exporter',
      command: bin,
      args: [`--web.listen-address=${address}`, `--web.config.file=${webConfigFile}`, '--disable-settings-metrics'],
      // The connection URL goes in the environment, not the command line everyone may read in ps.
      env: { PATH: process.env['PATH'] ?? '', DATA_SOURCE_NAME: url },
      ready: () => answers200(`http://${address}/metrics`, { authorization: monitoringAuthorization(options.masterKey) }),
      readyTimeoutMs: READY_TIMEOUT_MS,
      logger,
      ...account,
    });
    return { tool, address };
  } catch (error) {
    logger.warn({ err: error }, 'no database metrics: the PostgreSQL exporter did not start');
    return undefined;
  }
}

/**
 * Prometheus (Debian's binary) in a child process on 127.0.0.1, serving its UI and API under
 * /monitoring for web's proxy, with a configuration generated at every start: Forja's processes,
 * Forja's instance exporter (health, response time, memory of each ERP) and the PostgreSQL
 * exporter of the instance databases' server. Everything it needs stays in FORJA_DATA_DIR/monitoring.
 */
export async function startMonitoring(options: MonitoringOptions, parentLogger: Logger): Promise<ForjaProcess> {
  const logger = parentLogger.child({ process: 'monitoring' });
  const bin = options.prometheusBin ?? PROMETHEUS_BIN;
  if (!existsSync(bin)) return off(`off: ${bin} is missing (apt-get install prometheus prometheus-postgres-exporter)`);
  if (!(await isPortFree(options.port))) throw new Error(`monitoring: port ${options.port} on 127.0.0.1 is already in use: stop what holds it or set FORJA_MONITORING_PORT (or FORJA_MONITORING=false)`);
  const dir = resolve(options.dataDir, 'monitoring');
  // The time series are every instance's metrics, and the folder holds the secret: the monitoring account's alone.
  for (const folder of [dir, join(dir, 'data')]) {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    chmodSync(folder, 0o700);
  }
  const account = toolAccount(dir);
  const authorization = monitoringAuthorization(options.masterKey);
  const { webConfigFile, passwordFile } = writeMonitoringWebFiles(dir, monitoringSecret(options.masterKey), account);
  const exporter = await startInstanceExporter(options.readModel, options.dataDir, authorization);
  const database = await startPostgresExporter(options, account, webConfigFile, logger);
  const listen = `127.0.0.1:${options.port}`;
  const targets: ScrapeTarget[] = [
    ...options.forjaTargets,
    { job: 'prometheus', address: listen, path: `${MONITORING_PATH}/metrics`, basicAuth: true },
    { job: 'forja-instances', address: exporter.address, basicAuth: true },
    ...(database ? [{ job: 'erp-postgres', address: database.address, basicAuth: true }] : []),
  ];
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig({ scrapeIntervalS: options.scrapeIntervalS, targets, passwordFile }));
  if (account.uid !== undefined) chownSync(configFile, account.uid, account.gid!);
  let prometheus: ChildTool;
  try {
    prometheus = await startChildTool({
      label: 'Prometheus',
      command: bin,
      args: [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=${listen}`,
        // Basic auth on every path (exporter-toolkit): only web and Prometheus itself know the secret.
        `--web.config.file=${webConfigFile}`,
        // Its pages link and redirect below /monitoring, where web's proxy forwards the path as it is.
        `--web.external-url=${MONITORING_PATH}/`,
        `--web.route-prefix=${MONITORING_PATH}`,
      ],
      env: { PATH: process.env['PATH'] ?? '' },
      ready: () => answers200(`http://${listen}${MONITORING_PATH}/-/ready`, { authorization }),
      readyTimeoutMs: READY_TIMEOUT_MS,
      logger,
      ...account,
    });
  } catch (error) {
    await database?.tool.stop();
    await exporter.close();
    throw error;
  }
  return {
    name: 'monitoring',
    url: `http://${listen}${MONITORING_PATH}`,
    describe: () => [`Prometheus on ${listen}, every ${options.scrapeIntervalS} s, proxied by web at ${MONITORING_PATH}/${database ? '' : ' (no database metrics)'}`],
    async stop() {
      await prometheus.stop();
      await database?.tool.stop();
      await exporter.close();
    },
  };
}

/** `npm start`'s monitoring: after the executor, whose ERP database server it watches. */
export const startMonitoringProcess: StartProcess = async (infra, config, logger) => {
  if (!config.FORJA_MONITORING) return off('off (FORJA_MONITORING=false)');
  const settings = loadMonitoringSettings();
  const forjaTargets: ScrapeTarget[] = [
    { job: 'control-plane', address: loopbackAddress(config.FORJA_HOST, config.FORJA_CONTROL_PLANE_PORT) },
    { job: 'padron', address: loopbackAddress(config.FORJA_HOST, config.FORJA_PADRON_PORT) },
    { job: 'web', address: loopbackAddress(config.FORJA_HOST, config.FORJA_WEB_PORT) },
  ];
  return startMonitoring(
    {
      port: config.FORJA_MONITORING_PORT,
      scrapeIntervalS: config.FORJA_MONITORING_SCRAPE_S,
      dataDir: config.FORJA_DATA_DIR,
      forjaTargets,
      readModel: readModelOf(infra.db),
      erpDatabaseAdminUrl: erpServerAdminUrl(config.FORJA_DATA_DIR, settings.FORJA_ERP_DATABASE_URL),
      masterKey: resolvePlatformSecrets(config).masterKey,
    },
    logger,
  );
};
