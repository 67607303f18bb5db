import { randomUUID } from 'node:crypto';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { instanceDecider, InstanceSlugTakenError } from '#services/instances/domain/instance.decider.ts';
import { instanceStream } from '#services/instances/domain/instance.ts';
import { migrationDecider } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream, type LiveMigration } from '#services/migrations/domain/migration.ts';
import { isWorkingInstanceOf, workingInstanceOfRun } from '#services/migrations/domain/workingNames.ts';
import type { WorkingInstances } from './migrationStepContext.ts';
import { ensureMigrationProject } from './migrationProject.ts';

/**
 * The `instance` step's port for run `number` of migration `slug` (job `jobId`): the name is
 * recorded in the migration's stream before the instance is asked for, so a stop destroys what
 * was asked for even when the step never finished; requests are system decisions caused by the run.
 */
export function workingInstances(store: EventStore, run: { slug: string; number: number; jobId: string }, metadata: () => EventMetadata): WorkingInstances {
  return {
    async reserve() {
      const { aggregate } = await handleCommand(store, migrationDecider, migrationStream(run.slug), { type: 'RecordWorkingInstance', jobId: run.jobId }, { metadata: metadata() });
      // The decider recorded it now or on an earlier attempt (it refuses a run that is not current).
      return workingInstanceOfRun(aggregate.state as LiveMigration, run.number)!;
    },
    async request(settings) {
      await ensureMigrationProject(store, metadata());
      try {
        await handleCommand(store, instanceDecider, instanceStream(settings.slug), { type: 'RequestInstance', settings, jobId: randomUUID() }, { metadata: metadata() });
        return 'requested';
      } catch (error) {
        if (!(error instanceof InstanceSlugTakenError)) throw error;
      }
      // The slug is held: by this run's earlier attempt (fine), or by an instance it must not touch.
      const { state } = await aggregateStream(store, instanceDecider, instanceStream(settings.slug));
      return isWorkingInstanceOf(state, run.slug, run.number) ? 'requested' : 'taken';
    },
    async statusOf(slug) {
      const { state } = await aggregateStream(store, instanceDecider, instanceStream(slug));
      if (state.status === 'none') return { status: 'none', url: null, lastError: null };
      return { status: state.status, url: state.facts.url ?? null, lastError: state.lastError };
    },
  };
}
