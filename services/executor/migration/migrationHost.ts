import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import type { Bus } from '#shared/bus/bus.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { tenantAccount, type UidRange } from '#shared/local/tenantAccount.ts';
import type { PullSettings } from '#shared/net/pullSettings.ts';
import { isStepDone, type JobState } from '#shared/workflow/jobState.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import type { StepRegistry, WorkflowHost } from '#shared/workflow/workflowHost.ts';
import { migrationRuntimeName } from '#shared/instanceDatabase/reservedNames.ts';
import { migrationDecider, type MigrationCommand } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream, type Engine, type LiveMigration, type MigrationEvent, type MigrationState, type Run } from '#services/migrations/domain/migration.ts';
import type { ErpDatabases } from '../database/erpDatabases.ts';
import type { FilestoreLimits } from '../database/filestoreLimits.ts';
import type { InstanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { jobLog } from '../jobs/jobLog.ts';
import type { JobBinding } from '../jobs/stepEnvironment.ts';
import { logStream } from '../logFile.ts';
import { layOutMigration } from '../runtime/tenantFolders.ts';
import { logTail } from '../logTail.ts';
import type { ErpDatabaseServer, ErpRunSpec, Runtime } from '../runtime/runtime.ts';
import type { MigrationPaths, MigrationStep, MigrationStepContext } from './migrationStepContext.ts';
import { hopAddonsPath, type AddonsSettings } from '../runtime/addonsPath.ts';
import { checkoutAddons } from '../runtime/checkoutAddons.ts';
import { instanceVenvPython } from '../runtime/pythonEnv/requirementFiles.ts';
import { ensureHopCheckout, readyHopCheckout, type HopCheckoutTools } from './hopCheckout.ts';
import { emailsFromUserStreams } from './userEmails.ts';
import { workingInstances } from './workingInstances.ts';

/** What the executor gives migration runs. */
export interface MigrationEnvironment {
  store: EventStore;
  bus: Bus;
  logger: Logger;
  dataDir: string;
  /** FORJA_TENANT_UID_RANGE, for the migration's own account (tenantFolders.ts); the default range when unset. */
  uidRange?: UidRange;
  runtime: Runtime;
  databases: (log: Writable, job: JobBinding) => ErpDatabases;
  credentials: (database: string) => InstanceCredentials;
  erpDatabaseServer: ErpDatabaseServer;
  blobs: BlobStore;
  pull: PullSettings;
  /** FORJA_FILESTORE_MAX_*: how far an input's filestore may expand. */
  filestoreLimits: FilestoreLimits;
  /** `${paths.upgrade}` for the ERP of a version in a hop of an engine (upgradePathFor). */
  upgradePath: (version: string, engine: Engine) => string;
  heartbeatMs: number;
  /** FORJA_ERP_ADDONS (addonsPath.ts); absent: unset. */
  addons?: AddonsSettings;
  /** git with a project's keys, for the customer's code of each hop (hopCheckout.ts); absent: migrations naming code fail saying so. */
  source?: HopCheckoutTools['source'];
}

export const migrationDir = (dataDir: string, slug: string): string => join(dataDir, 'migrations', slug);

export function migrationPaths(dataDir: string, slug: string, run: number): MigrationPaths {
  const root = migrationDir(dataDir, slug);
  return { dataRoot: dataDir, root, input: join(root, 'input'), filestore: join(root, 'work', 'filestore'), run: join(root, 'runs', String(run)) };
}

/** The run's log: what Forja did, the tools' and the ERP's output. */
export const runLogFile = (dataDir: string, slug: string, run: number): string => join(migrationPaths(dataDir, slug, run).run, 'run.log');

/**
 * The working database may hold a half-done change of `step` unless the step before it was done in
 * this very run and this is the step's first attempt (a retry, a resume, or a start after a pause
 * or a lost executor is dirty).
 */
export function isDirty(job: JobState, step: PlannedStep): boolean {
  const state = job.steps[step.id];
  if ((state?.attempts ?? 0) > 1) return true;
  const index = job.plan.findIndex((candidate) => candidate.id === step.id);
  const previous = job.plan[index - 1];
  if (!previous) return false;
  return job.steps[previous.id]?.status !== 'completed' && job.steps[previous.id]?.status !== 'skipped';
}

type RunContext = { migration: LiveMigration; run: Run };

/** The migration stream as the workflow runner's host, for the run whose job is `jobId`. */
export function migrationHost(
  env: MigrationEnvironment,
  { slug, jobId, number }: { slug: string; jobId: string; number: number },
  steps: Readonly<Record<string, MigrationStep>>,
): WorkflowHost<MigrationState, MigrationCommand, MigrationEvent, RunContext> {
  const runOf = (state: MigrationState): Run | undefined => (state.status === 'none' || state.deleted ? undefined : state.runs.find((run) => run.job.jobId === jobId));
  const logFile = runLogFile(env.dataDir, slug, number);
  // Before the first log line: an earlier Forja gave run folders to the ERP's user, who may have planted links there.
  layOutMigration(env.dataDir, slug, tenantAccount('migration', slug, env.uidRange));
  const log = jobLog(env.dataDir, logFile);
  const registry: StepRegistry<RunContext> = Object.fromEntries(
    Object.entries(steps).map(([type, step]) => [type, (context: RunContext, planned: PlannedStep, signal: AbortSignal) => step(stepContext(env, context, planned, signal, log))]),
  );
  return {
    kind: 'migration',
    id: slug,
    stream: migrationStream(slug),
    decider: migrationDecider,
    jobOf: (state) => runOf(state)?.job ?? null,
    command: (command) => command as MigrationCommand,
    steps: registry,
    context(state) {
      const migration = state as LiveMigration;
      return { migration, run: runOf(migration)! };
    },
    log,
    /** A killed pg_restore or ERP leaves server-side work (a CREATE INDEX) running: end every connection to the working database. */
    async afterStop(state) {
      if (state.status === 'none') return;
      const ended = await env.databases(devNull(), { signal: AbortSignal.timeout(60_000), applicationName: `forja-stop-${slug}`.slice(0, 63) }).terminateConnections(state.workingDatabase);
      await log(`ended ${ended} connection(s) to ${state.workingDatabase}`);
    },
    failureTail(step, error) {
      env.logger.warn({ slug, jobId, step: step.id, err: error }, 'migration step failed');
      return (error as { logTail?: string[] }).logTail ?? logTail(env.dataDir, logFile);
    },
  };
}

function stepContext(env: MigrationEnvironment, { migration, run }: RunContext, step: PlannedStep, signal: AbortSignal, log: (line: string) => Promise<void>): MigrationStepContext {
  const paths = migrationPaths(env.dataDir, migration.slug, run.number);
  const logFile = runLogFile(env.dataDir, migration.slug, run.number);
  // The run's folder is root's alone (the ERP's output reaches it through a descriptor), and opened without following links.
  const toolLog = () => logStream(env.dataDir, logFile);
  const binding = { signal, applicationName: `forja-job-${run.job.jobId}`.slice(0, 63) };
  let databases: ErpDatabases | undefined;
  return {
    migration,
    run,
    step,
    attempt: run.job.steps[step.id]?.attempts ?? 1,
    dirty: isDirty(run.job, step),
    paths,
    get databases() {
      // One writable for the step's database work: its lines land in the run's log.
      databases ??= env.databases(toolLog(), binding);
      return databases;
    },
    runtime: env.runtime,
    erpRunSpec: (version: string, extra: Pick<ErpRunSpec, 'env'> = {}): ErpRunSpec => {
      const standin = env.runtime.usesStandin(version);
      // The customer's code of this hop, once checked out (prepareCode): its module folders, as an instance of that version gets them.
      const checkout = readyHopCheckout(migration, paths.root, version);
      return {
        // Not `mig-<slug>`: that is an instance's runtime name (its one-shot container, network, lock).
        slug: migrationRuntimeName(migration.slug),
        erpVersion: version,
        edition: migration.flavor,
        database: migration.workingDatabase,
        db: { ...env.erpDatabaseServer, ...env.credentials(migration.workingDatabase) },
        sourceDir: checkout,
        addonsPath: hopAddonsPath({
          erpVersion: version,
          edition: migration.flavor,
          engine: migration.engine,
          standin,
          settings: env.addons ?? {},
          checkoutFolders: checkout ? checkoutAddons(checkout) : [],
        }),
        dataDir: join(paths.root, 'work'),
        logFile,
        root: env.dataDir,
        tenant: { kind: 'migration', slug: migration.slug },
        python: instanceVenvPython(env.dataDir, version, checkout),
        ...extra,
      };
    },
    async prepareCode(version: string) {
      if (!migration.code?.[version] || !migration.project) return;
      if (!env.source) throw new Error(`code for ${version}: this executor cannot reach git repositories`);
      const account = tenantAccount('migration', migration.slug, env.uidRange);
      await ensureHopCheckout({ store: env.store, source: env.source }, { migration, migrationRoot: paths.root, version, account, job: binding, log, toolLog });
    },
    upgradePath: (version) => env.upgradePath(version, migration.engine),
    blobs: env.blobs,
    pull: env.pull,
    filestoreLimits: env.filestoreLimits,
    records: { store: env.store, blobs: env.blobs, emailsOf: (actors) => emailsFromUserStreams(env.store, actors) },
    instances: workingInstances(env.store, { slug: migration.slug, number: run.number, jobId: run.job.jobId }, () => ({
      correlationId: run.job.jobId,
      causationId: run.job.jobId,
      actor: 'system',
      at: new Date().toISOString(),
      via: 'executor',
    })),
    log,
    toolLog,
    signal,
  };
}

/** A log sink for work whose lines have nowhere to go. */
function devNull(): Writable {
  const sink = new PassThrough();
  sink.resume();
  return sink;
}

/** The steps a resumed run reused, for its log. */
export const reusedSteps = (job: JobState): string[] => job.plan.filter((step) => isStepDone(job.steps[step.id]) && job.steps[step.id]?.status === 'reused').map((step) => step.id);
