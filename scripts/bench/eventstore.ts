/**
 * `npm run bench:eventstore [-- --events N]`: throughput of the PostgreSQL event store against
 * anchors measured on the same fresh database in the same run. Prints the report on stdout and
 * progress on stderr. A benchmark, not a test: it fails only on real errors.
 */
import { fileURLToPath } from 'node:url';
import { createKysely, createPool } from '#shared/db.ts';
import { migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { migrateReadModel } from '#projections/migrations/index.ts';
import { anchorWorkload, createAnchorTable } from './anchors.ts';
import { withFreshCluster } from './benchCluster.ts';
import { appendWorkload, measureReadAll, measureReplays } from './measure.ts';
import { parseOptions } from './options.ts';
import { describeMachine, loadAverage, renderReport } from './report.ts';
import { interleave } from './interleave.ts';

const CLUSTER_DIR = fileURLToPath(new URL('../../.data/bench-postgres', import.meta.url));
const WRITERS = 8;
const PAGE_SIZE = 1000;

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const report = await withFreshCluster(CLUSTER_DIR, 'forja_bench', async (cluster) => {
    const url = cluster.url;
    const admin = createPool(url, { max: 1, applicationName: 'forja-bench-admin' });
    try {
      await migrateEventStore(admin);
      await migrateReadModel(createKysely<unknown>(admin));
      await createAnchorTable(admin, 'locked');
      await createAnchorTable(admin, 'plain');
      const machine = await describeMachine(admin);

      const [single, concurrent, locked, plain] = await interleave(admin, [
        appendWorkload(url, 1, options.singleWriterEvents, 'benchOne'),
        appendWorkload(url, WRITERS, options.concurrentEvents, 'benchMany'),
        anchorWorkload(url, 'locked', WRITERS, options.concurrentEvents),
        anchorWorkload(url, 'plain', WRITERS, options.concurrentEvents),
      ], options.rounds);
      const readAll = await measureReadAll(url, PAGE_SIZE);
      const replays = await measureReplays(url, options.replayBatchSizes);
      machine.loadAfter = loadAverage();
      if (!single || !concurrent || !locked || !plain) throw new Error('a write workload returned no figure');
      return renderReport({ options, machine, single, concurrent, plain, locked, readAll, replays });
    } finally {
      await admin.end();
    }
  });
  process.stdout.write(report);
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
