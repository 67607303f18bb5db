/** What one `bench:migrations` run measures. */
export interface MigrationBenchOptions {
  /** Size the ERP-like database is generated for, in MB (BENCH_MIGRATION_MB); the issue asks for at least 1 GB. */
  megabytes: number;
  /** Raw-vs-migration pairs, run A-B-B-A (BENCH_PAIRS); at least 5 for the figure, and even so each side goes first as often. */
  pairs: number;
  /** Runs of the 20-check plan the per-step overhead is the median of (BENCH_OVERHEAD_RUNS). */
  overheadRuns: number;
  /** Failed-then-resumed runs timed against full re-runs, alternating which goes first (BENCH_RESUME_PAIRS). */
  resumePairs: number;
}

/** The default size: the database the restore timings were first measured on (1,256 MB). */
const DEFAULT_MB = 1250;
/** What the generator makes per unit of scale, measured (68 MB at 0.04, about 7.5 MB of which any database has). */
export const MB_AT_SCALE_1 = 1510;

export function parseMigrationBenchOptions(env: NodeJS.ProcessEnv): MigrationBenchOptions {
  return {
    megabytes: positive(env['BENCH_MIGRATION_MB'] ?? String(DEFAULT_MB), 'BENCH_MIGRATION_MB'),
    pairs: Math.round(positive(env['BENCH_PAIRS'] ?? '6', 'BENCH_PAIRS')),
    overheadRuns: Math.round(positive(env['BENCH_OVERHEAD_RUNS'] ?? '3', 'BENCH_OVERHEAD_RUNS')),
    resumePairs: Math.round(positive(env['BENCH_RESUME_PAIRS'] ?? '2', 'BENCH_RESUME_PAIRS')),
  };
}

function positive(text: string, name: string): number {
  const value = Number(text.replaceAll('_', ''));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${text}`);
  return value;
}
