import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Bus, WorkMessage } from '#shared/bus/bus.ts';
import { systemMetadata } from '#shared/decider/systemMetadata.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { tenantAccount } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { done } from '#shared/workflow/stepOutcome.ts';
import type { StepRegistry, WorkflowHost } from '#shared/workflow/workflowHost.ts';
import { runWorkflowJob } from '#shared/workflow/workflowRunner.ts';
import { instanceDecider, type InstanceCommand } from '#services/instances/domain/instance.decider.ts';
import { instanceStream, type InstanceEvent, type InstanceState, type LiveInstance, type StepFacts } from '#services/instances/domain/instance.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import type { ErpRunSpec } from '../runtime/runtime.ts';
import { instanceVenvPython } from '../runtime/pythonEnv/requirementFiles.ts';
import { layOutInstance } from '../runtime/tenantFolders.ts';
import { jobLog } from './jobLog.ts';
import { logTail } from '../logTail.ts';
import type { JobTools, StepEnvironment } from './stepEnvironment.ts';
import { DATABASE_STEPS, STEPS } from './steps.ts';

/** What a work message on `work.instance` carries: the event that asked for the job. */
interface JobRequest {
  eventId: string;
  stream: string;
  type: 'InstanceRequested' | 'InstanceActionRequested';
  data: { slug: string; jobId: string };
  metadata: EventMetadata;
}

export type JobEnvironment = Omit<StepEnvironment, 'instance' | 'jobId' | 'spec' | 'erpLog' | 'dbLog' | 'signal' | keyof JobTools> & {
  tools: JobTools;
  store: EventStore;
  bus: Bus;
  logger: Logger;
  /** How often a running job tells the queue it is alive and re-reads its stream for a cancel whose notice was lost. */
  heartbeatMs: number;
};

/** Names this executor in the steps it starts. */
const EXECUTOR_ID = `${hostname()}:${process.pid}`;

export function erpRunSpec(env: Pick<JobEnvironment, 'dataDir' | 'erpDatabaseServer' | 'credentials' | 'erpServer'>, instance: LiveInstance): ErpRunSpec {
  const dir = instanceDir(env.dataDir, instance.slug);
  const database = databaseName(instance.slug);
  return {
    slug: instance.slug,
    erpVersion: instance.erpVersion,
    edition: instance.edition,
    database,
    // The ERP connects as its database's own role, never as the server's admin.
    db: { ...env.erpDatabaseServer, ...env.credentials(database) },
    sourceDir: instance.gitRepo ? join(dir, 'src') : null,
    // Computed by the build step, after the checkout (steps.ts); an instance built before it had none: `withAddonsPath`.
    addonsPath: instance.facts.addonsPath ?? [],
    dataDir: dir,
    logFile: instanceLogFile(env.dataDir, instance.slug, 'erp'),
    root: env.dataDir,
    tenant: { kind: 'instance', slug: instance.slug },
    // Demo data only where the decider allowed it (development instances).
    demoData: instance.demoData === true,
    ...(env.erpServer ? { server: env.erpServer } : {}),
    python: instanceVenvPython(env.dataDir, instance.erpVersion, instance.gitRepo ? join(dir, 'src') : null),
  };
}

type InstanceContext = Omit<StepEnvironment, 'signal' | keyof JobTools> & { tools: JobTools };

/** The step's tools, bound to its signal and tagged with its job (database sessions are named `forja-job-<job id>`). */
function boundTo(context: InstanceContext, signal: AbortSignal): StepEnvironment {
  const job = { signal, applicationName: `forja-job-${context.jobId}`.slice(0, 63) };
  const { tools, ...rest } = context;
  return { ...rest, signal, databases: (log) => tools.databases(log, job), source: (log) => tools.source(log, job, rest.instance.project), filestore: tools.filestore(job) };
}

/** Instance steps throw or return facts; none is retried (a failed instance job is rebuilt by its operator). */
const INSTANCE_STEPS: StepRegistry<InstanceContext> = Object.fromEntries(Object.entries(STEPS).map(([type, run]) => [type, async (context, _step, signal) => done(await run(boundTo(context, signal)))]));

/** The instance stream as the workflow runner's host. */
function instanceHost(env: JobEnvironment, slug: string, jobId: string): WorkflowHost<InstanceState, InstanceCommand, InstanceEvent, InstanceContext> {
  const erpLog = jobLog(env.dataDir, instanceLogFile(env.dataDir, slug, 'erp'));
  const dbLog = jobLog(env.dataDir, instanceLogFile(env.dataDir, slug, 'db'));
  return {
    kind: 'instance',
    id: slug,
    stream: instanceStream(slug),
    decider: instanceDecider,
    jobOf: (state) => (state.status !== 'none' && state.job.jobId === jobId ? state.job : null),
    command: (command) => command as InstanceCommand,
    steps: INSTANCE_STEPS,
    context(state) {
      const instance = state as LiveInstance;
      return { ...env, instance, jobId, spec: erpRunSpec(env, instance), erpLog, dbLog };
    },
    log: erpLog,
    failureTail(step, error) {
      env.logger.warn({ slug, jobId, step: step.id, err: error }, 'step failed');
      return (error as { logTail?: string[] }).logTail ?? logTail(env.dataDir, instanceLogFile(env.dataDir, slug, DATABASE_STEPS.includes(step.type) ? 'db' : 'erp'));
    },
  };
}

/**
 * Runs one instance job from its work message on the workflow kernel. The job's state is the
 * instance stream: a redelivered job resumes at its first incomplete step and never repeats a
 * completed one. A step's failure ends the job (the instance is `failed`, with the step, its
 * error and the log's last lines); a destroy cancels the job and kills its running step. The
 * message is acked either way; infrastructure errors (event store down) and the executor's
 * shutdown throw, and the bus redelivers.
 */
export async function runJob(message: WorkMessage, env: JobEnvironment, signal: AbortSignal): Promise<void> {
  const request = message.json<JobRequest>();
  const { slug, jobId } = request.data;
  // Before the first log line: an instance of an earlier layout is converted (its planted links removed).
  layOutInstance(env.dataDir, slug, tenantAccount('instance', slug, env.uidRange));
  const causedBy = { id: request.eventId, metadata: request.metadata };
  await runWorkflowJob(instanceHost(env, slug, jobId), {
    store: env.store,
    bus: env.bus,
    jobId,
    executor: EXECUTOR_ID,
    metadata: () => systemMetadata({ via: 'executor', causedBy }),
    signal,
    working: () => message.working(),
    // The re-read is the fallback for a lost cancel notice: cheap (only new events), so every 2 s at most.
    checkMs: Math.min(env.heartbeatMs, 2000),
    logger: env.logger,
  });
  message.ack();
}

export type { StepFacts };
