import { randomUUID } from 'node:crypto';
import { instancesToRecover } from '#projections/instances/instanceDetail.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import type { Bus } from '#shared/bus/bus.ts';
import { workMessageFor } from '#shared/bus/workMessage.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { causedByLast } from '#shared/decider/systemMetadata.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instanceStream } from '#services/instances/domain/instance.ts';
import { migrationStream } from '#services/migrations/domain/migration.ts';
import { liveRuns } from '#projections/erpMigrations/migrationRuns.ts';
import type { Runtime } from './runtime/runtime.ts';

/**
 * `npm start` is the all-in-one: the ERP servers it runs go down with it and come back with it,
 * like containers with a restart policy. (An executor run on its own leaves them running instead,
 * and a restarted one adopts them.)
 */

/** Stops every ERP server of this runtime; the pid files say "stopping", so none is reported as a crash. */
export async function stopErpServers(runtime: Runtime, logger: Logger): Promise<string[]> {
  const slugs = [...(await runtime.running()).keys()];
  await Promise.all(slugs.map((slug) => runtime.stop(slug).catch((error: unknown) => logger.error({ err: error, slug }, 'cannot stop an ERP server'))));
  if (slugs.length) logger.info({ instances: slugs }, 'ERP servers stopped with the platform');
  return slugs;
}

export interface Recovered {
  /** Running instances whose server went down with the platform: a `restart` job brings each back. */
  restarted: string[];
  /** Jobs the platform stopped in the middle: queued again, they resume at their first unfinished step. */
  resumed: string[];
  /** Migration runs the platform stopped in the middle (`<slug>#<run>`): queued again, they resume likewise. */
  migrations: string[];
}

/**
 * After the platform started again: instances that were running are restarted (stopped and
 * sleeping ones stay as they were), and jobs cut short are queued again (the in-process bus
 * forgot them; a real bus de-duplicates by event id). Waits for the read model to show every
 * event first, because it chooses from it.
 */
export async function recoverAfterRestart(options: { store: EventStore; bus: Bus; readModel: ReadModel; runtime: Runtime; logger: Logger; timeoutMs?: number }): Promise<Recovered> {
  const { store, bus, readModel, runtime, logger } = options;
  const head = await store.headPosition();
  for (const projection of ['instance_detail', 'erp_migrations']) await waitForPosition(readModel, projection, head, { timeoutMs: options.timeoutMs ?? 60_000 });
  const alive = await runtime.running();
  const recovered: Recovered = { restarted: [], resumed: [], migrations: [] };
  for (const row of await instancesToRecover(readModel)) {
    if (row.job_active) {
      if (await requeueJob(store, bus, row.slug, row.job_id)) recovered.resumed.push(row.slug);
    } else if (!alive.has(row.slug) && row.runtime === runtime.kind) {
      if (await requestRestart(store, row.slug)) recovered.restarted.push(row.slug);
    }
  }
  for (const run of await liveRuns(readModel)) {
    if (await requeueMigrationRun(store, bus, run.slug, run.job_id)) recovered.migrations.push(`${run.slug}#${run.number}`);
  }
  if (recovered.restarted.length || recovered.resumed.length || recovered.migrations.length) logger.info(recovered, 'instances and migration runs brought back after the platform restarted');
  return recovered;
}

/** The event that last set the run going (its request, a resume, a gate decision), queued again. */
async function requeueMigrationRun(store: EventStore, bus: Bus, slug: string, jobId: string): Promise<boolean> {
  const { events } = await store.readStream(migrationStream(slug));
  const starts = new Set(['MigrationRunRequested', 'MigrationJobResumed', 'MigrationGateResolved']);
  const start = events.filter((event) => starts.has(event.type) && (event.data as { jobId?: string }).jobId === jobId).at(-1);
  if (!start) return false;
  const { data, msgId } = workMessageFor(start);
  await bus.publishWork('work.migration', data, { msgId });
  return true;
}

async function requeueJob(store: EventStore, bus: Bus, slug: string, jobId: string): Promise<boolean> {
  const { events } = await store.readStream(instanceStream(slug));
  const request = events.find((event) => (event.type === 'InstanceRequested' || event.type === 'InstanceActionRequested') && (event.data as { jobId?: string }).jobId === jobId);
  if (!request) return false;
  const { data, msgId } = workMessageFor(request);
  await bus.publishWork('work.instance', data, { msgId });
  return true;
}

async function requestRestart(store: EventStore, slug: string): Promise<boolean> {
  try {
    await handleCommand(store, instanceDecider, instanceStream(slug), { type: 'RequestAction', action: 'restart', jobId: randomUUID(), reason: 'boot' }, { metadata: causedByLast('platform-restart') });
    return true;
  } catch (error) {
    if (error instanceof DomainError) return false; // something else changed it meanwhile
    throw error;
  }
}
