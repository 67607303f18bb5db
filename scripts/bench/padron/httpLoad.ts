import autocannon, { type Request } from 'autocannon';
import { progress } from './progress.ts';

/** One HTTP measurement: throughput and client-side latency, and which statuses came back. */
export interface HttpFigure {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  statuses: { '2xx': number; '3xx': number; '4xx': number; '5xx': number };
  errors: number;
}

export interface HttpRun {
  url: string;
  connections: number;
  seconds: number;
  requests: Request[];
}

/** autocannon against `url`, cycling through `requests` on every connection. */
export async function measureHttp(label: string, run: HttpRun): Promise<HttpFigure> {
  progress(`${label}: ${run.connections} connections, ${run.seconds} s`);
  const result = await autocannon({ url: run.url, connections: run.connections, duration: run.seconds, requests: run.requests, pipelining: 1 });
  const answered = result['2xx'] + result['3xx'];
  return {
    label,
    requestsPerSecond: answered / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses: { '2xx': result['2xx'], '3xx': result['3xx'], '4xx': result['4xx'], '5xx': result['5xx'] },
    errors: result.errors,
  };
}

/** Runs `requests` untimed for a few seconds, so the server's JIT and caches are warm when it counts. */
export async function warmUp(url: string, requests: Request[]): Promise<void> {
  await autocannon({ url, connections: 16, duration: 3, requests });
}

/** Refuses a figure whose answers were not all of the expected class: a fast wrong answer measures nothing. */
export function assertStatuses(figure: HttpFigure, expected: '2xx' | '3xx'): void {
  const total = figure.statuses['2xx'] + figure.statuses['3xx'] + figure.statuses['4xx'] + figure.statuses['5xx'];
  if (figure.statuses[expected] !== total || figure.errors > 0) {
    throw new Error(`${figure.label}: expected only ${expected}, got ${JSON.stringify(figure.statuses)} and ${figure.errors} errors`);
  }
}
