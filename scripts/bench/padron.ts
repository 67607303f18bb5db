/**
 * `npm run bench:padron [-- --scale 1 --seconds 10 --connections 64 --rounds 5]`: the padrón
 * import and lookup service against anchors measured in the same run on the same machine (a
 * constant-JSON node:http server, raw PK lookups through pg, raw COPY into an unindexed table).
 * Generates the files, imports them into a fresh private cluster under .data/bench-padron, serves
 * them, loads the service with autocannon, prints the report on stdout (progress on stderr) and
 * stops the cluster. A benchmark, not a test: it fails only on real errors (or wrong statuses), and
 * with --quick (CI) also when server CPU per hit exceeds CPU_GUARD × the anchor's in the same run.
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPool } from '#shared/db.ts';
import { withFreshCluster } from './benchCluster.ts';
import { pkLookupRate, rawCopySeconds } from './padron/anchors.ts';
import { generateFiles, importFiles } from './padron/imports.ts';
import { parsePadronBenchOptions } from './padron/options.ts';
import { progress } from './padron/progress.ts';
import { cpuGuardHolds, CPU_GUARD, renderPadronReport } from './padron/report.ts';
import { sampleCuits } from './padron/samples.ts';
import { serveAndMeasure } from './padron/serviceRuns.ts';

const DIR = fileURLToPath(new URL('../../.data/bench-padron', import.meta.url));
const SAMPLE = 1000;
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');

async function main(): Promise<void> {
  const options = parsePadronBenchOptions(process.argv.slice(2), process.env);
  const files = await generateFiles(join(DIR, 'files'), options.scale);
  const report = await withFreshCluster(join(DIR, 'postgres'), 'forja_bench', async (cluster) => {
    const pool = createPool(cluster.url, { max: 8, applicationName: 'forja-bench' });
    try {
      const { rows } = await pool.query<{ server_version: string }>('show server_version');
      const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, PostgreSQL ${rows[0]?.server_version ?? '?'}`;
      const loadBefore = load();
      const imports = [];
      for (const figure of await importFiles(join(DIR, 'files'), files, cluster.url)) {
        progress(`raw COPY anchor for load ${figure.load.loadId}`);
        imports.push({ ...figure, rawCopySeconds: await rawCopySeconds(pool, figure.load.loadId, join(DIR, 'raw-copy.bin')) });
      }
      const samples = await sampleCuits(pool, SAMPLE);

      const { service, ...figures } = await serveAndMeasure(cluster.url, samples, options);

      const biggest = imports.reduce((best, figure) => (figure.load.rowsLoaded > best.load.rowsLoaded ? figure : best));
      const own = await pool.query<{ cuit: string }>(`select cuit::text from padron.rates_${biggest.load.loadId} tablesample bernoulli (1) limit ${SAMPLE}`);
      const pkLookups = await pkLookupRate(pool, biggest.load.loadId, own.rows.map((row) => row.cuit), options.seconds);
      if (options.quick && !cpuGuardHolds(figures)) {
        process.stderr.write(`[bench:padron] guard failed: server CPU per hit is over ${CPU_GUARD}× the anchor's (report on stdout)\n`);
        process.exitCode = 1;
      }
      return renderPadronReport({ machine, options, imports, service, ...figures, pkLookups, loadBefore, loadAfter: load() });
    } finally {
      await pool.end();
    }
  });
  process.stdout.write(report);
}

main().catch((error: unknown) => {
  process.stderr.write(`[bench:padron] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
