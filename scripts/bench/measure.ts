import { performance } from 'node:perf_hooks';
import { createKysely, createPool } from '#shared/db.ts';
import { createPgEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import type { ReadModelDatabase } from '#projections/readModel.ts';
import { rebuildProjection } from '#projections/runner/rebuild.ts';
import { streamActivityProjection } from '#projections/streamActivity/streamActivity.ts';
import { benchEvent, benchPool, expectedVersionOf, progress, streamOf, warmPool, type Figure, type Workload } from './workload.ts';

/**
 * Appends through the real adapter, one event per append with an expected version, `writers`
 * concurrent loops on a pool of the same size (one connection per writer, as a service would).
 */
export function appendWorkload(url: string, writers: number, total: number, category: string): Workload {
  const pool = benchPool(url, writers);
  const store = createPgEventStore({ pool, connectionString: url });
  return {
    label: `appends through the event store, ${writers} writer${writers === 1 ? '' : 's'}`,
    writers,
    total,
    open: () => warmPool(pool, writers),
    op: (writer, seq) =>
      store.appendToStream(streamOf(category, writer, seq), [benchEvent(writer, seq)], { expectedVersion: expectedVersionOf(seq) }),
    async close() {
      await store.close();
      await pool.end();
    },
  };
}

/** The whole global feed through `readAll`, keyset pages of `pageSize`, as a catching-up reader does. */
export async function measureReadAll(url: string, pageSize: number): Promise<Figure> {
  const pool = createPool(url, { max: 1, applicationName: 'forja-bench' });
  const store = createPgEventStore({ pool, connectionString: url });
  try {
    await warmPool(pool, 1);
    progress(`readAll, pages of ${pageSize}`);
    const start = performance.now();
    let after = 0;
    let count = 0;
    for (;;) {
      const page = await store.readAll({ after, limit: pageSize });
      if (page.length === 0) break;
      count += page.length;
      after = page.at(-1)!.globalPosition;
    }
    return { label: `readAll, keyset pages of ${pageSize.toLocaleString('en-US')}`, count, seconds: (performance.now() - start) / 1000 };
  } finally {
    await store.close();
    await pool.end();
  }
}

/**
 * Replays the whole feed from zero into `stream_activity` with the production rebuild, once per
 * batch size. The store and the read model share one pool: a rebuild reads and writes in turn.
 */
export async function measureReplays(url: string, batchSizes: readonly number[]): Promise<Figure[]> {
  const pool = createPool(url, { max: 2, applicationName: 'forja-bench' });
  const store = createPgEventStore({ pool, connectionString: url });
  const db = createKysely<ReadModelDatabase>(pool).withSchema('read_model');
  try {
    await warmPool(pool, 2);
    const figures: Figure[] = [];
    for (const batchSize of batchSizes) {
      await pool.query('checkpoint');
      progress(`replay stream_activity, batch ${batchSize}`);
      const start = performance.now();
      const count = await rebuildProjection(streamActivityProjection, { store, db, connectionString: url, batchSize });
      const label = `replay into stream_activity, batch ${batchSize.toLocaleString('en-US')}`;
      figures.push({ label, count, seconds: (performance.now() - start) / 1000 });
    }
    return figures;
  } finally {
    await store.close();
    await pool.end();
  }
}
