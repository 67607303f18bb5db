/** What one benchmark run measures; every size derives from `events`. */
export interface BenchOptions {
  /** Total events written by the append runs, and so read back and replayed. */
  events: number;
  /** Events appended by the single writer; the rest go to the 8 writers and the anchors. */
  singleWriterEvents: number;
  /** Events appended by the 8 writers; each anchor inserts as many, so the ratios compare like with like. */
  concurrentEvents: number;
  /** Replay batch sizes to try, in order; the ratio uses the fastest. 1,000 is the runner's default. */
  replayBatchSizes: number[];
  /** Slices the write workloads are interleaved in (see `interleave`). */
  rounds: number;
}

const DEFAULT_EVENTS = 200_000;
const USAGE = 'usage: bench:eventstore [--events N] [--replay-batch 1000,5000] [--rounds 10]';

/**
 * Flags win over BENCH_EVENTS. A quarter of the events measure the single writer: it is the slower
 * path per event and the figure is stable well before 50,000 appends.
 */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  let events = env.BENCH_EVENTS ? positiveInt(env.BENCH_EVENTS, 'BENCH_EVENTS') : DEFAULT_EVENTS;
  let replayBatchSizes = [1000, 5000];
  let rounds = 10;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return next;
    };
    if (flag === '--events') events = positiveInt(value(), flag);
    else if (flag === '--replay-batch') replayBatchSizes = value().split(',').map((size) => positiveInt(size, flag));
    else if (flag === '--rounds') rounds = positiveInt(value(), flag);
    else throw new Error(`unknown argument ${flag}\n${USAGE}`);
  }
  if (events < 16) throw new Error('--events must be at least 16 (8 writers need something to write)');
  const singleWriterEvents = Math.floor(events / 4);
  const concurrentEvents = events - singleWriterEvents;
  return {
    events,
    singleWriterEvents,
    concurrentEvents,
    replayBatchSizes,
    rounds,
  };
}

function positiveInt(text: string, name: string): number {
  const value = Number(text.replaceAll('_', ''));
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${text}`);
  return value;
}
