import type { Request } from 'autocannon';
import { assertStatuses, measureHttp, type HttpFigure } from './httpLoad.ts';
import { progress } from './progress.ts';

/** A workload measured in rounds: what to hit and which status class every answer must have. */
export interface RoundTarget {
  label: string;
  url: string;
  requests: Request[];
  expect: '2xx' | '3xx';
  /** The serving process's CPU seconds so far: CPU per request is steadier than req/s on a shared machine. */
  cpuSeconds: () => number;
}

/** A figure over all rounds, and its throughput in each round for per-round ratios. */
export interface RoundFigure extends HttpFigure {
  perRound: number[];
  /** Server CPU time per answered request, microseconds, over all rounds. */
  cpuMicrosPerRequest: number;
}

/**
 * Measures the targets in turn, `rounds` times, each for seconds ÷ rounds: other work on a shared
 * machine comes and goes over minutes, so interleaving gives every target the same conditions and
 * a ratio taken round by round compares like with like. Throughput is over all rounds; p50 is the
 * median of the rounds' p50s, p99 the worst round's.
 */
export async function measureInRounds(targets: readonly RoundTarget[], options: { rounds: number; seconds: number; connections: number }): Promise<RoundFigure[]> {
  const slice = Math.max(1, Math.round(options.seconds / options.rounds));
  const runs = targets.map((): HttpFigure[] => []);
  const cpu = targets.map(() => 0);
  for (let round = 0; round < options.rounds; round++) {
    progress(`round ${round + 1} of ${options.rounds}`);
    for (const [i, target] of targets.entries()) {
      const cpuBefore = target.cpuSeconds();
      const figure = await measureHttp(target.label, { url: target.url, requests: target.requests, connections: options.connections, seconds: slice });
      cpu[i] = (cpu[i] ?? 0) + target.cpuSeconds() - cpuBefore;
      assertStatuses(figure, target.expect);
      runs[i]?.push(figure);
    }
  }
  return targets.map((target, i) => {
    const figures = runs[i] ?? [];
    const perRound = figures.map((figure) => figure.requestsPerSecond);
    const answered = figures.reduce((sum, figure) => sum + figure.statuses['2xx'] + figure.statuses['3xx'], 0);
    return {
      cpuMicrosPerRequest: ((cpu[i] ?? 0) / Math.max(1, answered)) * 1e6,
      label: target.label,
      requestsPerSecond: perRound.reduce((sum, rate) => sum + rate, 0) / Math.max(1, perRound.length),
      p50: median(figures.map((figure) => figure.p50)),
      p99: Math.max(...figures.map((figure) => figure.p99)),
      statuses: figures.reduce((sum, figure) => ({ '2xx': sum['2xx'] + figure.statuses['2xx'], '3xx': sum['3xx'] + figure.statuses['3xx'], '4xx': sum['4xx'] + figure.statuses['4xx'], '5xx': sum['5xx'] + figure.statuses['5xx'] }), { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 }),
      errors: figures.reduce((sum, figure) => sum + figure.errors, 0),
      perRound,
    };
  });
}

/** The median over rounds of `figure ÷ anchor`, round by round. */
export function roundRatio(figure: RoundFigure, anchor: RoundFigure): number {
  return median(figure.perRound.map((rate, round) => rate / (anchor.perRound[round] ?? Number.NaN)));
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
