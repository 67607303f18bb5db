import { stringify } from 'yaml';
import { MONITORING_USER } from '#shared/monitoring/monitoringSecret.ts';

/** One `/metrics` endpoint Prometheus scrapes, as a job of its own. */
export interface ScrapeTarget {
  /** The job label (`control-plane`, `padron`, …): what a query selects it by. */
  job: string;
  /** `127.0.0.1:8080`. */
  address: string;
  /** Defaults to `/metrics`. */
  path?: string;
  /** Sends the monitoring secret (Prometheus itself and its exporters ask for it). */
  basicAuth?: boolean;
}

export interface PrometheusConfigInput {
  scrapeIntervalS: number;
  targets: ScrapeTarget[];
  /** The file holding the monitoring secret, for targets with `basicAuth`: read at each scrape, never written into this configuration. */
  passwordFile?: string;
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
      ...(target.basicAuth ? { basic_auth: { username: MONITORING_USER, password_file: passwordFileOf(input) } } : {}),
    })),
  });
}

function passwordFileOf(input: PrometheusConfigInput): string {
  if (!input.passwordFile) throw new Error('a target asks for basic auth, but there is no password file');
  return input.passwordFile;
}

/** `host:port` Prometheus can reach a Forja process at: a process listening on every address answers on loopback too. */
export function loopbackAddress(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return reachable.includes(':') ? `[${reachable}]:${port}` : `${reachable}:${port}`;
}
