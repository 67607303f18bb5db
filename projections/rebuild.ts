import { loadConfigOrExit } from '#shared/config/config.ts';
import { createLogger } from '#shared/log.ts';
import { openInfrastructureOrExit } from '#shared/platform/infrastructure.ts';
import { migrateReadModel } from './migrations/index.ts';
import { readModelOf } from './readModel.ts';
import { projections } from './registry.ts';
import { rebuildProjection } from './runner/rebuild.ts';

/** `npm run projections:rebuild [name…]`: replays the named projections (all when none) from zero. */
const config = loadConfigOrExit();
const logger = createLogger(config, 'rebuild');
const names = process.argv.slice(2);
const unknown = names.filter((name) => !projections.some((projection) => projection.name === name));
if (unknown.length > 0) {
  process.stderr.write(`unknown projection ${unknown.join(', ')}; known: ${projections.map((p) => p.name).join(', ')}\n`);
  process.exit(2);
}
const infra = await openInfrastructureOrExit(config, logger, 'projections:rebuild');
let failed = false;
try {
  await migrateReadModel(infra.db);
  for (const projection of projections.filter((p) => names.length === 0 || names.includes(p.name))) {
    const started = Date.now();
    const events = await rebuildProjection(projection, {
      store: infra.store,
      db: readModelOf(infra.db),
      connectionString: infra.databaseUrl,
      batchSize: config.FORJA_PROJECTION_BATCH,
    });
    process.stdout.write(`rebuilt ${projection.name}: ${events} events in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
} catch (error) {
  process.stderr.write(`rebuild failed: ${(error as Error).message}\n`);
  failed = true;
} finally {
  await infra.close();
}
process.exit(failed ? 1 : 0);
