import type { StartProcess } from '#shared/platform/process.ts';
import { startProjector } from './projector.ts';

/** The projector as a Forja process: every projection and reactor, with lag logged when it grows. */
export const startProjectorProcess: StartProcess = async (infra, config, logger) => {
  const projector = await startProjector({
    db: infra.db,
    store: infra.store,
    bus: infra.bus,
    connectionString: infra.databaseUrl,
    logger: logger.child({ process: 'projector' }),
    batchSize: config.FORJA_PROJECTION_BATCH,
    retryMs: config.FORJA_PROJECTION_POLL_MS,
  });
  return {
    name: 'projector',
    describe: () => [`${projector.runners.length} runners: ${projector.runners.map((runner) => runner.name).join(', ')}`],
    stop: () => projector.stop(),
  };
};
