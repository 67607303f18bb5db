/** What one padrón benchmark run measures. */
export interface PadronBenchOptions {
  /** Generator scale: 1 writes ~3.2 million lines (~4.7 million rates), the minimum of 3 million rows. */
  scale: number;
  /** Seconds per HTTP measurement. */
  seconds: number;
  /** Concurrency of the single-lookup runs and the constant-JSON anchor. */
  connections: number;
  /** Slices the single-lookup runs and the anchor are interleaved in (see measureInRounds). */
  rounds: number;
  /** The CI guard: a small run that fails only when a hit costs the server more than CPU_GUARD × the anchor's answer. */
  quick: boolean;
}

/** What `--quick` sets: a few seconds of load on a small registry, enough for a CPU-per-answer ratio. */
const QUICK = { scale: 0.01, seconds: 3, connections: 16, rounds: 3 };

const USAGE = 'usage: bench:padron [--quick] [--scale 1] [--seconds 10] [--connections 64] [--rounds 5]';

/** Flags win over BENCH_PADRON_SCALE; flags after --quick win over what it sets. */
export function parsePadronBenchOptions(argv: readonly string[], env: NodeJS.ProcessEnv): PadronBenchOptions {
  const options: PadronBenchOptions = { scale: env.BENCH_PADRON_SCALE ? positive(env.BENCH_PADRON_SCALE, 'BENCH_PADRON_SCALE') : 1, seconds: 10, connections: 64, rounds: 5, quick: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return next;
    };
    if (flag === '--quick') Object.assign(options, QUICK, { quick: true });
    else if (flag === '--scale') options.scale = positive(value(), flag);
    else if (flag === '--seconds') options.seconds = Math.round(positive(value(), flag));
    else if (flag === '--connections') options.connections = Math.round(positive(value(), flag));
    else if (flag === '--rounds') options.rounds = Math.round(positive(value(), flag));
    else throw new Error(`unknown argument ${flag}\n${USAGE}`);
  }
  return options;
}

function positive(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${text}`);
  return value;
}
