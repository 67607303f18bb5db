import { hostname } from 'node:os';
import { PassThrough } from 'node:stream';
import { uploadKeys } from '#shared/blobs/blobKeys.ts';
import type { WorkMessage } from '#shared/bus/bus.ts';
import type { WorkMessageBody } from '#shared/bus/workMessage.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { systemMetadata } from '#shared/decider/systemMetadata.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { removeTenantAccount } from '#shared/local/tenantAccount.ts';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instanceStream } from '#services/instances/domain/instance.ts';
import { randomUUID } from 'node:crypto';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream } from '#services/migrations/domain/migration.ts';
import { checkpointDatabaseOf, isWorkingInstanceOf, workingInstanceCandidates } from '#services/migrations/domain/workingNames.ts';
import { asideDatabaseName } from '#shared/instanceDatabase/reservedNames.ts';
import { runWorkflowJob } from '#shared/workflow/workflowRunner.ts';
import { migrationHost, type MigrationEnvironment } from './migrationHost.ts';
import type { MigrationStep } from './migrationStepContext.ts';

const EXECUTOR_ID = `${hostname()}:${process.pid}`;

/** A system event's metadata naming this machine, so a migration's history shows which executor host decided each step. */
const executorMetadata = (causedBy: Pick<RecordedEvent, 'id' | 'metadata'>) => ({ ...systemMetadata({ via: 'executor', causedBy }), host: hostname() });

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
      await removeWork(env, data.slug, { id: body.eventId, metadata: body.metadata }, body.type === 'MigrationDeleted');
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
      metadata: () => executorMetadata(causedBy),
      signal,
      working: () => message.working(),
      checkMs: Math.min(env.heartbeatMs, 2000),
      logger: env.logger,
    });
    message.ack();
  };
}

/**
 * Drops the working database and its checkpoint, and removes the migration's files (runs, input, artifacts).
 * A deleted migration's uploaded dump and filestore go too; a stopped one keeps them: its next run fetches them again.
 */
async function removeWork(env: MigrationEnvironment, slug: string, causedBy: Pick<RecordedEvent, 'id' | 'metadata'>, deleted: boolean): Promise<void> {
  const { state } = await aggregateStream(env.store, migrationDecider, migrationStream(slug));
  if (state.status === 'none') return;
  // The working instances of its runs go too: they show a result that no longer exists. Only those
  // whose own events say this migration asked for them: a user's `acme-r1` is not migration acme's.
  for (const { instance, run } of workingInstanceCandidates(state)) {
    const { state: found } = await aggregateStream(env.store, instanceDecider, instanceStream(instance));
    if (!isWorkingInstanceOf(found, slug, run) || found.status === 'destroyed') continue;
    const command = { type: 'RequestAction' as const, action: 'destroy' as const, jobId: randomUUID(), reason: 'user' as const };
    await handleCommand(env.store, instanceDecider, instanceStream(instance), command, { metadata: executorMetadata(causedBy) }).catch((error: unknown) => {
      if (!(error instanceof DomainError)) throw error; // destroyed meanwhile
    });
  }
  const log = new PassThrough();
  log.resume();
  const databases = env.databases(log, { signal: AbortSignal.timeout(10 * 60_000), applicationName: `forja-cleanup-${slug}`.slice(0, 63) });
  await databases.terminateConnections(state.workingDatabase);
  // The checkpoint first: it holds objects of the working database's role, which goes with the last of the two.
  const checkpoint = checkpointDatabaseOf(state);
  await databases.drop(asideDatabaseName(checkpoint)); // left by a snapshot interrupted before its rename
  await databases.drop(checkpoint);
  await databases.drop(state.workingDatabase);
  // The migration's whole folder (its blobs are keys below it), removed with coreutils, which follows no link.
  await env.blobs.deletePrefix(`migrations/${slug}`);
  if (deleted && state.input.mode === 'upload') await env.blobs.deletePrefix(uploadKeys(state.input.uploadId).prefix);
  // Nothing of the migration is left to own: its account goes (a later run makes it anew).
  removeTenantAccount('migration', slug);
  env.logger.info({ slug }, 'migration work removed');
}
