import type { Kysely } from 'kysely';
import type { Bus } from '#shared/bus/bus.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { migrateReadModel } from './migrations/index.ts';
import { readModelOf } from './readModel.ts';
import { controlRelayReactor } from './reactors/controlRelay.ts';
import { workRelayReactor } from './reactors/workRelay.ts';
import { controlRoutes, projections, workRoutes } from './registry.ts';
import type { Runner, RunnerStatus } from './runner/checkpointedRunner.ts';
import { startProjection, startReactor } from './runner/projectionRunner.ts';

export interface ProjectorDeps {
  /** The whole database: the projector migrates schema `read_model` before it starts. */
  db: Kysely<unknown>;
  store: EventStore;
  bus: Bus;
  connectionString: string;
  logger: Logger;
  batchSize: number;
  retryMs: number;
}

export interface Projector {
  runners: readonly Runner[];
  status(): Promise<RunnerStatus[]>;
  stop(): Promise<void>;
}

/** Migrates the read model and starts every projection and reactor of the registry. */
export async function startProjector(deps: ProjectorDeps): Promise<Projector> {
  await migrateReadModel(deps.db);
  const runnerDeps = {
    store: deps.store,
    db: readModelOf(deps.db),
    connectionString: deps.connectionString,
    logger: deps.logger,
    batchSize: deps.batchSize,
    retryMs: deps.retryMs,
  };
  const runners = [
    ...projections.map((projection) => startProjection(projection, runnerDeps)),
    startReactor(workRelayReactor(deps.bus, workRoutes), runnerDeps),
    startReactor(controlRelayReactor(deps.bus, controlRoutes), runnerDeps),
  ];
  return {
    runners,
    status: () => Promise.all(runners.map((runner) => runner.status())),
    stop: async () => {
      await Promise.all(runners.map((runner) => runner.stop()));
    },
  };
}
