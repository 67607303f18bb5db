import { keptPorts } from '#projections/instances/instanceDetail.ts';
import { migrateReadModel } from '#projections/migrations/index.ts';
import { orExit } from '#shared/config/config.ts';
import { gitAccessFrom } from '#shared/git/gitAccess.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { erpDatabases } from './database/erpDatabases.ts';
import { instanceCredentials } from './database/instanceRole.ts';
import { copyFilestore, extractFilestore } from './database/filestore.ts';
import { filestoreLimits } from './database/filestoreLimits.ts';
import { openErpDatabaseServer } from './erpDatabaseServer.ts';
import { durationMs, loadExecutorSettings, type ExecutorSettings } from './executor.settings.ts';
import { reportUnexpectedExits } from './exitReporter.ts';
import { startIdleSweep } from './idleSweep.ts';
import { runJob, type JobEnvironment } from './jobs/jobRunner.ts';
import { oncePerJob } from './jobs/oncePerJob.ts';
import { recoverAfterRestart, stopErpServers } from './platformLifecycle.ts';
import { parsePortRange, portAllocator } from './ports/portAllocator.ts';
import { openRuntime } from './runtime/openRuntime.ts';
import { checkoutCommit, resolveBranchHead } from './source/gitSource.ts';

/** Durable consumer shared by every executor: each job goes to one of them. */
const DURABLE = 'executor-instances';

/**
 * The executor: pulls instance jobs from `work.instance`, runs their steps on the runtime, puts
 * idle development instances to sleep and reports ERP servers that die.
 *
 * On its own, ERP servers outlive the executor (a restarted one adopts them, and reports the ones
 * that died meanwhile). With `serversFollowPlatform` (npm start, the all-in-one) they stop with it,
 * and the next start restarts the instances that were running and re-queues unfinished jobs.
 */
export function executorStarter(overrides: Partial<ExecutorSettings> = {}, options: { serversFollowPlatform?: boolean } = {}): StartProcess {
  return async (infra, config, parentLogger) => {
    const settings = { ...orExit(() => loadExecutorSettings()), ...overrides };
    const logger = parentLogger.child({ process: 'executor' });
    await migrateReadModel(infra.db);
    const readModel = infra.db.withSchema('read_model');
    const erpServer = await openErpDatabaseServer(settings.FORJA_ERP_DATABASE_URL, config.FORJA_DATA_DIR);
    const runtime = await openRuntime(settings, config.FORJA_DATA_DIR, logger);
    const ackWaitMs = settings.FORJA_JOB_ACK_WAIT_S * 1000;
    const gitAccess = gitAccessFrom(config);
    const { masterKey } = resolvePlatformSecrets(config);
    const credentials = (database: string) => instanceCredentials(masterKey, database);
    const env: JobEnvironment = {
      store: infra.store,
      logger,
      runtime,
      databases: (log) => erpDatabases({ adminUrl: erpServer.adminUrl, log, credentials }),
      credentials,
      source: (log) => ({
        resolveBranchHead: (repo, branch) => resolveBranchHead(repo, branch, { log, access: gitAccess }),
        checkout: (repo, branch, commit, dir) => checkoutCommit(repo, branch, commit, dir, { log, access: gitAccess }),
      }),
      filestore: { copy: copyFilestore, extract: (archive, toDir, log) => extractFilestore(archive, toDir, log, filestoreLimits(settings)) },
      erpDatabaseServer: erpServer.server,
      dataDir: config.FORJA_DATA_DIR,
      healthTimeoutMs: settings.FORJA_HEALTH_TIMEOUT_S * 1000,
      ports: portAllocator({ range: parsePortRange(settings.FORJA_ERP_PORTS), reserved: () => keptPorts(readModel) }),
      heartbeatMs: Math.max(200, Math.floor(ackWaitMs / 4)),
    };
    const exits = reportUnexpectedExits({ store: infra.store, runtime, dataDir: config.FORJA_DATA_DIR, logger });
    const recovery = options.serversFollowPlatform
      ? recoverAfterRestart({ store: infra.store, bus: infra.bus, readModel, runtime, logger })
      : exits.reconcile(readModel);
    await recovery.catch((error: unknown) => logger.warn({ err: error }, 'cannot reconcile instances with their servers'));
    const sweep = startIdleSweep({ store: infra.store, readModel, sleepAfterMs: durationMs(settings.FORJA_SLEEP_AFTER), logger });
    const abort = new AbortController();
    const runOnce = oncePerJob();
    const consuming = infra.bus.consume(
      { durable: DURABLE, filter: 'work.instance', ackWaitMs, maxInFlight: settings.FORJA_EXECUTOR_CONCURRENCY, signal: abort.signal },
      (message) => runOnce(message, () => runJob(message, env, abort.signal)),
    );
    consuming.catch((error: unknown) => logger.error({ err: error }, 'the job consumer stopped'));
    return {
      name: 'executor',
      describe: () => [`${runtime.describe()}; ${settings.FORJA_EXECUTOR_CONCURRENCY} jobs at once`, erpServer.describe],
      async stop() {
        sweep.stop();
        abort.abort();
        await consuming.catch(() => undefined);
        if (options.serversFollowPlatform) await stopErpServers(runtime, logger);
        await runtime.close();
        await erpServer.close();
      },
    };
  };
}

/** `npm run executor`: an executor on its own; the ERP servers outlive it. */
export const startExecutorProcess: StartProcess = executorStarter();

/** The executor inside `npm start`: the ERP servers go down and come back with the platform. */
export const startAllInOneExecutor: StartProcess = executorStarter({}, { serversFollowPlatform: true });
