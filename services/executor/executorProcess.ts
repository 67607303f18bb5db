import { keptPorts } from '#projections/instances/instanceDetail.ts';
import { migrateReadModel } from '#projections/migrations/index.ts';
import { readModelOf } from '#projections/readModel.ts';
import { orExit } from '#shared/config/config.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { gitAccessFrom } from '#shared/git/gitAccess.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { mailboxLogin } from '#shared/mail/mailboxLogin.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { migrateSecrets } from '#shared/secrets/secrets.ts';
import { sshKeySecrets } from '#shared/secrets/sshKeySecrets.ts';
import { projectSource } from './source/projectSource.ts';
import { erpDatabases } from './database/erpDatabases.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { copyFilestore, extractFilestore } from './database/filestore.ts';
import { filestoreLimits } from './database/filestoreLimits.ts';
import { defaultRestoreJobs } from './database/pgTools.ts';
import { openErpDatabaseServer } from './erpDatabaseServer.ts';
import { durationMs } from '#shared/config/duration.ts';
import { erpServerSettings, loadExecutorSettings, type ExecutorSettings } from './executor.settings.ts';
import { reportUnexpectedExits } from './exitReporter.ts';
import { startIdleSweep } from './idleSweep.ts';
import { instanceWork } from './jobs/instanceWork.ts';
import type { JobEnvironment } from './jobs/jobRunner.ts';
import { recoverAfterRestart, stopErpServers } from './platformLifecycle.ts';
import { parsePortRange, portAllocator } from './ports/portAllocator.ts';
import { openRuntime } from './runtime/openRuntime.ts';
import { parseUidRange, tenantIsolation } from '#shared/local/tenantAccount.ts';
import { consumeWork } from './workConsumers.ts';
import type { MigrationEnvironment } from './migration/migrationHost.ts';
import { migrationWork } from './migration/migrationWork.ts';
import { migrationSteps, upgradePathFor } from './migration/steps/registry.ts';
import { pullSettingsFrom } from '#shared/net/pullSettings.ts';

/** Durable consumer of instance work shared by every executor: each job goes to one of them. */
const INSTANCE_DURABLE = 'executor-instances';
/** Migration runs have their own consumer and concurrency: a long run never takes an instance job's slot. */
const MIGRATION_DURABLE = 'executor-migrations';

/**
 * The executor: pulls instance work from `work.instance` (one consumer per work subject), runs
 * each job's steps on the workflow kernel and the runtime, purges destroyed instances' files, puts
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
    await migrateSecrets(infra.db);
    const readModel = readModelOf(infra.db);
    const erpServer = await openErpDatabaseServer(settings.FORJA_ERP_DATABASE_URL, config.FORJA_DATA_DIR);
    const uidRange = parseUidRange(config.FORJA_TENANT_UID_RANGE);
    const runtime = await openRuntime(settings, config.FORJA_DATA_DIR, logger, uidRange);
    const ackWaitMs = settings.FORJA_JOB_ACK_WAIT_S * 1000;
    const gitAccess = gitAccessFrom(config);
    const { masterKey } = resolvePlatformSecrets(config);
    const credentials = (database: string) => instanceCredentials(masterKey, database);
    const sourceDeps = { store: infra.store, secrets: sshKeySecrets(infra.db, createSecretBox(masterKey)), access: gitAccess };
    const restoreJobs = settings.FORJA_RESTORE_JOBS ?? defaultRestoreJobs();
    // The catcher listens on the host's loopback: what an ERP of the process runtime reaches.
    const mailCatcher = config.FORJA_MAILCATCHER ? { host: '127.0.0.1', port: config.FORJA_MAILCATCHER_SMTP_PORT } : undefined;
    const env: JobEnvironment = {
      store: infra.store,
      bus: infra.bus,
      logger,
      runtime,
      tools: {
        databases: (log, job) => erpDatabases({ adminUrl: erpServer.adminUrl, log, credentials, restoreJobs, mailCatcher, mailboxLogin: (slug) => mailboxLogin(masterKey, slug), ...job }),
        source: (log, { signal }, project) => projectSource(sourceDeps, project, log, signal),
        filestore: ({ signal }) => ({
          copy: (from, to, log, reader) => copyFilestore(from, to, log, { signal, root: config.FORJA_DATA_DIR, reader }),
          extract: (archive, toDir, log) => extractFilestore(archive, toDir, log, filestoreLimits(settings), { signal, root: config.FORJA_DATA_DIR }),
        }),
      },
      credentials,
      erpDatabaseServer: erpServer.server,
      dataDir: config.FORJA_DATA_DIR,
      uidRange,
      healthTimeoutMs: settings.FORJA_HEALTH_TIMEOUT_S * 1000,
      addons: { FORJA_ERP_ADDONS: settings.FORJA_ERP_ADDONS, FORJA_ERP_ENTERPRISE_ADDONS: settings.FORJA_ERP_ENTERPRISE_ADDONS, FORJA_OPENUPGRADE_PATH: settings.FORJA_OPENUPGRADE_PATH },
      erpServer: erpServerSettings(settings),
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
    const blobs = createFsBlobStore(config.FORJA_DATA_DIR);
    const migrations: MigrationEnvironment = {
      store: infra.store,
      bus: infra.bus,
      logger,
      dataDir: config.FORJA_DATA_DIR,
      uidRange,
      runtime,
      databases: env.tools.databases,
      credentials,
      erpDatabaseServer: erpServer.server,
      blobs,
      pull: pullSettingsFrom(config),
      filestoreLimits: filestoreLimits(settings),
      upgradePath: upgradePathFor({
        openupgrade: settings.FORJA_UPGRADE_PATH ?? (settings.FORJA_OPENUPGRADE_PATH ? `${settings.FORJA_OPENUPGRADE_PATH}/openupgrade_scripts/scripts` : undefined),
        upgradeUtil: settings.FORJA_UPGRADE_UTIL_PATH,
      }),
      heartbeatMs: env.heartbeatMs,
      addons: env.addons,
      source: env.tools.source,
    };
    const steps = migrationSteps({ url: settings.FORJA_UPGRADE_SERVICE_URL, sshUser: settings.FORJA_UPGRADE_SERVICE_SSH_USER, dataPath: settings.FORJA_UPGRADE_SERVICE_DATA_PATH });
    const consuming = consumeWork(
      infra.bus,
      [
        { subject: 'work.instance', durable: INSTANCE_DURABLE, concurrency: settings.FORJA_EXECUTOR_CONCURRENCY, handle: instanceWork({ ...env, blobs }) },
        { subject: 'work.migration', durable: MIGRATION_DURABLE, concurrency: settings.FORJA_MIGRATION_CONCURRENCY, handle: migrationWork(migrations, steps) },
      ],
      { ackWaitMs, signal: abort.signal, logger },
    );
    return {
      name: 'executor',
      describe: () => [`${runtime.describe()}; ${settings.FORJA_EXECUTOR_CONCURRENCY} instance jobs and ${settings.FORJA_MIGRATION_CONCURRENCY} migration run(s) at once`, `tenant isolation: ${tenantIsolation()}`, erpServer.describe],
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
