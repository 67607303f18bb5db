import fc from 'fast-check';

/**
 * Cases one run of `test/fuzz` sends in all, over every spec: `FORJA_FUZZ_RUNS`, by default a
 * number `npm test` affords; `npm run test:fuzz` runs ten times as many.
 */
export const FUZZ_RUNS = positiveInteger('FORJA_FUZZ_RUNS', 10_500);

/** The run's seed, `FORJA_FUZZ_SEED` to replay one; each property derives its own from it. */
export const FUZZ_SEED = process.env['FORJA_FUZZ_SEED'] ? Number(process.env['FORJA_FUZZ_SEED']) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;

/** A mocha timeout for a spec: ten minutes, more for a larger FORJA_FUZZ_RUNS. */
export const FUZZ_TIMEOUT_MS = Math.max(600_000, FUZZ_RUNS * 60);

/** Requests in flight at once, per property. */
export const FUZZ_CONCURRENCY = positiveInteger('FORJA_FUZZ_CONCURRENCY', 8);

function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${process.env[name]}`);
  return value;
}

/** How a spec's share of FUZZ_RUNS splits over its targets: in proportion to their weights, at least 20 each. */
export function runsByWeight<T extends { weight: number }>(targets: readonly T[], share: number): Map<T, number> {
  const total = targets.reduce((sum, target) => sum + target.weight, 0);
  return new Map(targets.map((target) => [target, Math.max(20, Math.round((FUZZ_RUNS * share * target.weight) / total))]));
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

/**
 * Checks `property` on `runs` inputs of `arbitrary`, FUZZ_CONCURRENCY at a time (each a
 * fast-check run of its own share, seeded from FUZZ_SEED and `name`); a failure is shrunk and
 * reported with the seed and the smallest input found. Resolves with the cases run.
 */
export async function fuzzProperty<T>(name: string, arbitrary: fc.Arbitrary<T>, runs: number, property: (input: T) => Promise<void>): Promise<number> {
  let cases = 0;
  const counted = async (input: T) => {
    cases += 1;
    await property(input);
  };
  const shards = Math.min(FUZZ_CONCURRENCY, runs);
  const outcomes = await Promise.allSettled(
    Array.from({ length: shards }, (_, shard) =>
      fc.assert(fc.asyncProperty(arbitrary, counted), {
        seed: (FUZZ_SEED + hash(name) + shard * 7919) | 0,
        numRuns: Math.floor(runs / shards) + (shard < runs % shards ? 1 : 0),
        // Shrinking a case costs requests; a few hundred steps find the small input.
        maxSkipsPerRun: 10,
      }),
    ),
  );
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) {
    const error = failure.reason as Error & { cause?: unknown };
    const cause = error.cause instanceof Error ? `\nFailed with: ${error.cause.message}` : '';
    error.message = `${name}: ${error.message}${cause}\n(run seed ${FUZZ_SEED}: FORJA_FUZZ_SEED=${FUZZ_SEED} npx mocha test/fuzz/<spec> --grep '${name}' replays it)`;
    throw error;
  }
  return cases;
}

/** Tallies cases and time per spec, for the line each spec prints at its end. */
export function fuzzTally(spec: string) {
  let started = performance.now();
  let cases = 0;
  let targets = 0;
  return {
    /** The clock starts here (the fuzzing, not the platform's start-up). */
    start() {
      started = performance.now();
    },
    add(count: number) {
      cases += count;
      targets += 1;
    },
    summary: () =>
      `fuzz ${spec}: ${cases.toLocaleString('en')} cases over ${targets} targets in ${((performance.now() - started) / 1000).toFixed(1)} s (seed ${FUZZ_SEED}, FORJA_FUZZ_RUNS=${FUZZ_RUNS})`,
  };
}
