import { stringify } from 'yaml';

/** One `/metrics` endpoint Prometheus scrapes, as a job of its own. */
export interface ScrapeTarget {
  /** The job label (`control-plane`, `padron`, …): what a query selects it by. */
  job: string;
  /** `127.0.0.1:8080`. */
  address: string;
  /** Defaults to `/metrics`. */
  path?: string;
}

export interface PrometheusConfigInput {
  scrapeIntervalS: number;
  targets: ScrapeTarget[];
}

/**
 * Prometheus' configuration file (YAML): one job per target, all on the same interval. The
 * evaluation interval follows the scrape interval: there are no rules to evaluate faster.
 */
export function prometheusConfig(input: PrometheusConfigInput): string {
  const interval = `${input.scrapeIntervalS}s`;
  // A scrape must end before the next one starts; Prometheus refuses a timeout above the interval.
  const timeout = `${Math.max(1, Math.min(10, input.scrapeIntervalS))}s`;
  return stringify({
    global: { scrape_interval: interval, scrape_timeout: timeout, evaluation_interval: interval },
    scrape_configs: input.targets.map((target) => ({
      job_name: target.job,
      metrics_path: target.path ?? '/metrics',
      static_configs: [{ targets: [target.address] }],
    })),
  });
}

/** `host:port` Prometheus can reach a Forja process at: a process listening on every address answers on loopback too. */
export function loopbackAddress(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return reachable.includes(':') ? `[${reachable}]:${port}` : `${reachable}:${port}`;
}
