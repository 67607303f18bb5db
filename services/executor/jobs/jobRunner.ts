import { join } from 'node:path';
import type { WorkMessage } from '#shared/bus/bus.ts';
import { foldEvents } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { instanceDecider, JobSupersededError, type InstanceCommand } from '#services/instances/domain/instance.decider.ts';
import { instanceStream, type InstanceEvent, type LiveInstance } from '#services/instances/domain/instance.ts';
import { databaseName } from '../database/databaseName.ts';
import type { ErpRunSpec } from '../runtime/runtime.ts';
import { jobLog } from './jobLog.ts';
import { logTail } from '../logTail.ts';
import type { StepEnvironment } from './stepEnvironment.ts';
import { DATABASE_STEPS, STEPS } from './steps.ts';

/** What a work message on `work.instance` carries: the event that asked for the job. */
interface JobRequest {
  eventId: string;
  stream: string;
  type: 'InstanceRequested' | 'InstanceActionRequested';
  data: { slug: string; jobId: string };
  metadata: EventMetadata;
}

export type JobEnvironment = Omit<StepEnvironment, 'instance' | 'jobId' | 'spec' | 'erpLog' | 'dbLog' | 'signal'> & {
  store: EventStore;
  logger: Logger;
  /** Called between steps and while one runs, so the queue does not redeliver a long job. */
  heartbeatMs: number;
};

export function erpRunSpec(env: Pick<JobEnvironment, 'dataDir' | 'erpDatabaseServer' | 'credentials'>, instance: LiveInstance): ErpRunSpec {
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
    dataDir: dir,
    logFile: instanceLogFile(env.dataDir, instance.slug, 'erp'),
  };
}

async function loadInstance(store: EventStore, slug: string): Promise<LiveInstance | null> {
  const { events } = await store.readStream<InstanceEvent>(instanceStream(slug));
  const state = foldEvents(instanceDecider, events.map(({ type, data }) => ({ type, data }) as InstanceEvent));
  return state.status === 'none' ? null : state;
}

/**
 * Runs one job from its work message. The job's state is the instance stream: each pass reloads
 * it and runs the first step without a completed event, so a redelivered job resumes where the
 * lost executor was and never repeats a completed step. A step's failure ends the job (the
 * instance is `failed`, with the step, its error and the log's last lines); the message is acked
 * either way. Infrastructure errors (event store down) throw, and the bus redelivers.
 */
export async function runJob(message: WorkMessage, env: JobEnvironment, signal: AbortSignal): Promise<void> {
  const request = message.json<JobRequest>();
  const { slug, jobId } = request.data;
  const metadata = (): EventMetadata => ({ correlationId: request.metadata.correlationId, causationId: request.eventId, actor: 'system', at: new Date().toISOString() });
  const send = (command: InstanceCommand) => handleCommand(env.store, instanceDecider, instanceStream(slug), command, { metadata: metadata() });
  const heartbeat = setInterval(() => message.working(), env.heartbeatMs);
  const erpLog = jobLog(instanceLogFile(env.dataDir, slug, 'erp'));
  const dbLog = jobLog(instanceLogFile(env.dataDir, slug, 'db'));
  /** The instance fails with the step, its error and the last lines of the log that explains it. */
  const reportFailure = async (step: string, error: unknown, durationMs: number) => {
    const reason = (error as Error).message;
    await erpLog(`${step} failed: ${reason}`);
    const tail = (error as { logTail?: string[] }).logTail ?? logTail(instanceLogFile(env.dataDir, slug, DATABASE_STEPS.includes(step) ? 'db' : 'erp'));
    env.logger.warn({ slug, jobId, step, err: error }, 'step failed');
    await send({ type: 'FailStep', jobId, step, durationMs, error: reason, logTail: tail }).catch((failure: unknown) => {
      if (!(failure instanceof JobSupersededError)) throw failure;
    });
  };
  try {
    for (;;) {
      const instance = await loadInstance(env.store, slug);
      if (!instance || instance.job.id !== jobId || instance.job.ended) break;
      const step = instance.job.steps.find((name) => !instance.job.completed.includes(name));
      if (!step) break;
      const run = STEPS[step];
      if (!run) throw new Error(`no implementation for step ${step}`);
      try {
        await send({ type: 'StartStep', jobId, step });
      } catch (error) {
        if (error instanceof JobSupersededError) break;
        throw error;
      }
      message.working();
      await erpLog(`${instance.job.kind}: ${step} started`);
      const started = performance.now();
      const stepEnv: StepEnvironment = { ...env, instance, jobId, spec: erpRunSpec(env, instance), erpLog, dbLog, signal };
      let facts;
      try {
        facts = await run(stepEnv);
      } catch (error) {
        if (signal.aborted) throw error;
        await reportFailure(step, error, Math.round(performance.now() - started));
        break;
      }
      const durationMs = Math.round(performance.now() - started);
      await erpLog(`${instance.job.kind}: ${step} completed in ${durationMs} ms`);
      try {
        await send({ type: 'CompleteStep', jobId, step, durationMs, facts });
      } catch (error) {
        if (error instanceof JobSupersededError) break;
        throw error;
      }
    }
    message.ack();
  } finally {
    clearInterval(heartbeat);
  }
}
