import { sql } from 'kysely';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { ReadModel } from '../readModel.ts';
import { resetCheckpoint } from './checkpoints.ts';
import type { Projection } from './projection.ts';
import { projectionBatchApplier } from './projectionRunner.ts';
import { createRunnerLock } from './runnerLock.ts';

export interface RebuildDeps {
  store: EventStore;
  /** The read-model database (schema `read_model`). */
  db: ReadModel;
  connectionString: string;
  batchSize: number;
}

/**
 * Empties the projection's tables and replays the whole feed into them. It takes the projection's
 * lock first: a projector running it elsewhere must be stopped, or it would race the replay.
 * Returns how many events were read.
 */
export async function rebuildProjection(projection: Projection, deps: RebuildDeps): Promise<number> {
  const lock = createRunnerLock(deps.connectionString, projection.name);
  const waiting = new AbortController();
  setTimeout(() => waiting.abort(), 2000).unref();
  if (!(await lock.acquire(waiting.signal, 100))) {
    await lock.release();
    throw new Error(`projection ${projection.name} is running in another process: stop the projector, then rebuild`);
  }
  try {
    await deps.db.transaction().execute(async (trx) => {
      for (const table of projection.tables) await sql`truncate table ${sql.table(`read_model.${table}`)}`.execute(trx);
      await resetCheckpoint(trx, projection.name);
    });
    const applyBatch = projectionBatchApplier(projection, deps.db);
    const head = await deps.store.headPosition();
    let position = 0;
    let read = 0;
    while (position < head) {
      const batch = await deps.store.readAll({ after: position, limit: deps.batchSize });
      if (batch.length === 0) break;
      const to = batch.at(-1)!.globalPosition;
      await applyBatch(batch, position, to);
      position = to;
      read += batch.length;
    }
    return read;
  } finally {
    await lock.release();
  }
}
