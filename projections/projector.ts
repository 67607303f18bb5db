import type { Kysely } from 'kysely';
import type { Bus } from '#shared/bus/bus.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { migrateReadModel } from './migrations/index.ts';
import { startNoticeSender } from './notices/noticeSender.ts';
import { mailerFor, type NoticeWiring } from './notices/noticeWiring.ts';
import { readModelOf } from './readModel.ts';
import { controlRelayReactor } from './reactors/controlRelay.ts';
import { migrationNoticesReactor } from './reactors/migrationNotices.ts';
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
  /** E-mail notices of migration runs: where they go and how often they are retried. */
  notices: NoticeWiring;
}

export interface Projector {
  runners: readonly Runner[];
  /** Where notices go, for the start-up banner. */
  mail: string;
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
  const mailer = mailerFor(deps.notices, deps.logger);
  // Sending is off the feed: the reactor only queues, so a dead SMTP server holds up no runner.
  const sender = startNoticeSender({ ...deps.notices, db: runnerDeps.db, store: deps.store, mailer, connectionString: deps.connectionString, logger: deps.logger });
  const noticesReactor = migrationNoticesReactor({ store: deps.store, db: runnerDeps.db, logger: deps.logger, maxAgeMs: deps.notices.maxAgeMs, wake: () => sender.wake() });
  const runners = [
    ...projections.map((projection) => startProjection(projection, runnerDeps)),
    startReactor(workRelayReactor(deps.bus, workRoutes), runnerDeps),
    startReactor(controlRelayReactor(deps.bus, controlRoutes), runnerDeps),
    startReactor(noticesReactor, runnerDeps),
  ];
  return {
    runners,
    mail: mailer.describe,
    status: () => Promise.all(runners.map((runner) => runner.status())),
    stop: async () => {
      await Promise.all(runners.map((runner) => runner.stop()));
      await sender.stop();
    },
  };
}
