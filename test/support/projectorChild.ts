import { createKysely, createPool } from '#shared/db.ts';
import { createPgEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { silentLogger } from '#shared/log.ts';
import { readModelOf } from '#projections/readModel.ts';
import { startProjection } from '#projections/runner/projectionRunner.ts';
import { recordingProjection } from './slowProjection.ts';

/** A projector process for the crash test: argv = database URL, projection name, table, stall position. */
const [url, name, table, stallAt] = process.argv.slice(2) as [string, string, string, string];
const pool = createPool(url);
const store = createPgEventStore({ pool, connectionString: url, pollIntervalMs: 100 });
startProjection(recordingProjection(name, table, Number(stallAt)), {
  store,
  db: readModelOf(createKysely(pool)),
  connectionString: url,
  logger: silentLogger,
  batchSize: 100,
  retryMs: 100,
});
