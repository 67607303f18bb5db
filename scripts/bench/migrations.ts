/**
 * `npm run bench:migrations`: how much a migration's `restore` step costs over a raw restore of
 * the same dump. Generates an ERP-like database (≥ 1 GB by default; BENCH_MIGRATION_MB shrinks it),
 * dumps it with `pg_dump -Fc`, serves the dump on 127.0.0.1, then times, in interleaved pairs
 * (A-B-B-A, BENCH_PAIRS), a raw `createdb` + `pg_restore` against a migration run of the real
 * executor whose plan is `fetch, restore` (and `pg_restore -j 2`, the best a DBA does on 2 cores).
 * Reports the median ratio restore-without-snapshot ÷ the faster raw restore (target ≤ 1.05), the
 * checkpoint snapshot on its own, request → completed, and the executor's overhead per step from a
 * plan of 20 trivial checks on a small database. Then what resumable runs are for (BENCH_RESUME_PAIRS):
 * an upgrade that fails at its last step after its work, fixed in the recipe and resumed, against a
 * full re-run from fetch of the fixed plan (what OpenUpgrade users do today; target ≤ 25 %). Everything runs on a
 * fresh private PostgreSQL cluster in a temporary folder, removed afterwards.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { planStep } from '#shared/workflow/plan.ts';
import { withFreshCluster } from './benchCluster.ts';
import { dumpDatabase, generateErpDatabase } from './migrations/erpDatabase.ts';
import { serveFiles } from './migrations/dumpServer.ts';
import { startMigrationPlatform, type RunTimes } from './migrations/migrationPlatform.ts';
import { brokenUpgradePlan, FAILING_STEP, fixedUpgradePlan } from './migrations/upgradePlans.ts';
import { MB_AT_SCALE_1, parseMigrationBenchOptions } from './migrations/options.ts';
import { timeRawRestore } from './migrations/rawRestore.ts';
import { renderMigrationReport, type Pair, type ResumePair } from './migrations/report.ts';
import { progress } from './workload.ts';

const CHECKS = 20;
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const options = parseMigrationBenchOptions(process.env);
const dir = mkdtempSync(join(tmpdir(), 'forja-bench-migrations-'));
// The cluster runs as the postgres user when we are root: it must reach its folder (and read the dumps).
chmodSync(dir, 0o755);
try {
  const report = await withFreshCluster(join(dir, 'cluster'), 'forja', async (cluster) => {
    const admin = new pg.Client({ connectionString: cluster.urlFor('postgres') });
    await admin.connect();
    const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
    const loadBefore = load();
    const scale = options.megabytes / MB_AT_SCALE_1;
    progress(`generating the ERP-like database (scale ${scale.toFixed(2)}, about ${Math.round(options.megabytes)} MB)`);
    let started = performance.now();
    const bytes = await generateErpDatabase(cluster.urlFor('postgres'), cluster.urlFor('erp_source'), 'erp_source', scale);
    const generatedMs = performance.now() - started;
    progress(`generated ${Math.round(bytes / 1e6)} MB in ${seconds(generatedMs)}; dumping it with pg_dump -Fc`);
    const dumpFile = join(dir, 'erp.dump');
    started = performance.now();
    const dumpBytes = await dumpDatabase(cluster.urlFor('erp_source'), dumpFile);
    const dumpedMs = performance.now() - started;
    progress(`dumped ${Math.round(dumpBytes / 1e6)} MB in ${seconds(dumpedMs)}`);
    const smallDump = join(dir, 'small.dump');
    await generateErpDatabase(cluster.urlFor('postgres'), cluster.urlFor('erp_small'), 'erp_small', 0.0001);
    await dumpDatabase(cluster.urlFor('erp_small'), smallDump);
    // Only the dumps are needed from here on; the sources would take disk and cache from the runs.
    for (const database of ['erp_source', 'erp_small']) await admin.query(`drop database ${database}`);
    await admin.query('create database forja_platform');

    const files = await serveFiles([dumpFile, smallDump]);
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    const platform = await startMigrationPlatform(cluster.urlFor, 'forja_platform', dataDir);
    try {
      const pairs: Pair[] = [];
      for (let i = 0; i < options.pairs; i++) {
        const raw = (jobs: number) => () => timeRawRestore(admin, cluster.urlFor('postgres'), dumpFile, `raw_${jobs}_${i + 1}`, jobs);
        const migration = async (): Promise<RunTimes> => {
          const slug = `bench-restore-${i + 1}`;
          const times = await platform.run(slug, files.url(dumpFile), [planStep('fetch'), planStep('restore')]);
          await platform.remove(slug);
          return times;
        };
        // A-B-B-A: the raw restores go first in even pairs (serial, then -j 2), last in odd ones (-j 2, then serial).
        let rawMs = 0;
        let rawJ2Ms = 0;
        let run: RunTimes;
        if (i % 2 === 0) {
          rawMs = await raw(1)();
          rawJ2Ms = await raw(2)();
          run = await migration();
        } else {
          run = await migration();
          rawJ2Ms = await raw(2)();
          rawMs = await raw(1)();
        }
        const pair: Pair = { rawMs, rawJ2Ms, run, order: i % 2 === 0 ? 'raw first' : 'migration first' };
        pairs.push(pair);
        const restoreMs = run.steps.get('restore')!;
        progress(`pair ${i + 1}/${options.pairs} (${pair.order}): raw ${seconds(rawMs)}, raw -j 2 ${seconds(rawJ2Ms)}, restore step ${seconds(restoreMs)} (snapshot ${seconds(run.snapshotMs)}), ratio ${((restoreMs - run.snapshotMs) / Math.min(rawMs, rawJ2Ms)).toFixed(3)}`);
      }
      const resumes: ResumePair[] = [];
      for (let i = 0; i < options.resumePairs; i++) {
        const full = async () => {
          const slug = `bench-full-${i + 1}`;
          const times = await platform.run(slug, files.url(dumpFile), fixedUpgradePlan());
          await platform.remove(slug);
          return times;
        };
        const resumed = async () => {
          const slug = `bench-resume-${i + 1}`;
          const failedAt = await platform.runToFailure(slug, files.url(dumpFile), brokenUpgradePlan());
          if (failedAt !== FAILING_STEP) throw new Error(`the broken plan failed at ${failedAt}, not ${FAILING_STEP}`);
          const times = await platform.fixAndResume(slug, fixedUpgradePlan());
          await platform.remove(slug);
          return times;
        };
        const [fullRun, resumeRun] = i % 2 === 0 ? [await full(), await resumed()] : await resumed().then(async (run) => [await full(), run] as const);
        resumes.push({ full: fullRun, resume: resumeRun, order: i % 2 === 0 ? 'full first' : 'resume first' });
        progress(`resume pair ${i + 1}/${options.resumePairs}: full re-run ${seconds(fullRun.endToEndMs)}, fix + resume ${seconds(resumeRun.endToEndMs)}, ratio ${(resumeRun.endToEndMs / fullRun.endToEndMs).toFixed(3)}`);
      }
      const checkPlan = [planStep('fetch'), planStep('restore'), ...Array.from({ length: CHECKS }, (_, n) => planStep('check', { id: `check_${n + 1}`, params: { sql: 'select 1', expect: { rows: 1 } } }))];
      const checkRuns: RunTimes[] = [];
      for (let r = 0; r < options.overheadRuns; r++) {
        const slug = `bench-checks-${r + 1}`;
        const run = await platform.run(slug, files.url(smallDump), checkPlan);
        await platform.remove(slug);
        checkRuns.push(run);
        progress(`${CHECKS} checks, run ${r + 1}/${options.overheadRuns}: overhead ${run.overheadPerStepMs('restore').toFixed(0)} ms per step`);
      }
      const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, PostgreSQL ${version}`;
      return renderMigrationReport({ machine, options, bytes, generatedMs, dumpBytes, dumpedMs, pairs, resumes, checkRuns, checks: CHECKS, loadBefore, loadAfter: load() });
    } finally {
      await platform.stop();
      await files.close();
      await admin.end();
    }
  });
  process.stdout.write(report);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
