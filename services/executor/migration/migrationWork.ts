import { hostname } from 'node:os';
import { rm } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import type { WorkMessage } from '#shared/bus/bus.ts';
import type { WorkMessageBody } from '#shared/bus/workMessage.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { systemMetadata } from '#shared/decider/systemMetadata.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream } from '#services/migrations/domain/migration.ts';
import { runWorkflowJob } from '#shared/workflow/workflowRunner.ts';
import { migrationDir, migrationHost, type MigrationEnvironment } from './migrationHost.ts';
import type { MigrationStep } from './migrationStepContext.ts';
import { snapshotName } from './steps/checkpoint.ts';

const EXECUTOR_ID = `${hostname()}:${process.pid}`;

/** Events on `work.migration` that mean "run (or go on with) this job". */
const RUN_EVENTS = new Set(['MigrationRunRequested', 'MigrationJobResumed', 'MigrationGateResolved']);
/** Events on `work.migration` that mean "remove what the migration's runs made". */
const CLEANUP_EVENTS = new Set(['MigrationStopped', 'MigrationDeleted']);

/**
 * The executor's `work.migration` handler: a requested, resumed or un-gated run goes on from its
 * first incomplete step on the workflow kernel; a stopped or deleted migration has its working
 * database, checkpoint and files removed. Acked either way; infrastructure errors and the
 * executor's shutdown throw, and the bus redelivers.
 */
export function migrationWork(env: MigrationEnvironment, steps: Readonly<Record<string, MigrationStep>>) {
  return async (message: WorkMessage, signal: AbortSignal): Promise<void> => {
    const body = message.json<WorkMessageBody>();
    const data = body.data as { slug: string; jobId?: string; workingDatabase?: string };
    if (CLEANUP_EVENTS.has(body.type)) {
      await removeWork(env, data.slug);
      message.ack();
      return;
    }
    if (!RUN_EVENTS.has(body.type) || !data.jobId) {
      message.term();
      return;
    }
    const causedBy = { id: body.eventId, metadata: body.metadata };
    const { state } = await aggregateStream(env.store, migrationDecider, migrationStream(data.slug));
    const run = state.status === 'none' ? undefined : state.runs.find((candidate) => candidate.job.jobId === data.jobId);
    if (!run) {
      message.ack(); // stopped or deleted meanwhile: nothing to run
      return;
    }
    await runWorkflowJob(migrationHost(env, { slug: data.slug, jobId: data.jobId, number: run.number }, steps), {
      store: env.store,
      bus: env.bus,
      jobId: data.jobId,
      executor: EXECUTOR_ID,
      metadata: () => systemMetadata({ via: 'executor', causedBy }),
      signal,
      working: () => message.working(),
      checkMs: Math.min(env.heartbeatMs, 2000),
      logger: env.logger,
    });
    message.ack();
  };
}

/** Drops the working database and its checkpoint, and removes the migration's files (runs, input, artifacts). */
async function removeWork(env: MigrationEnvironment, slug: string): Promise<void> {
  const { state } = await aggregateStream(env.store, migrationDecider, migrationStream(slug));
  if (state.status === 'none') return;
  const log = new PassThrough();
  log.resume();
  const databases = env.databases(log, { signal: AbortSignal.timeout(10 * 60_000), applicationName: `forja-cleanup-${slug}`.slice(0, 63) });
  await databases.terminateConnections(state.workingDatabase);
  // The checkpoint first: it holds objects of the working database's role, which goes with the last of the two.
  await databases.drop(snapshotName(state.workingDatabase));
  await databases.drop(state.workingDatabase);
  await env.blobs.deletePrefix(`migrations/${slug}`);
  await rm(migrationDir(env.dataDir, slug), { recursive: true, force: true });
  env.logger.info({ slug }, 'migration work removed');
}
