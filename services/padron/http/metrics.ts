import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { RegistryView } from '../lookup/registry.ts';
import { LatencyTally } from './latencyTally.ts';

export type Route = 'cuit' | 'cuits' | 'download' | 'health' | 'metrics' | 'docs' | 'openapi' | 'other';

/** One route and status, bound once: recording an answer is an increment and a bucket write. */
export interface AnswerRecorder {
  /** One answered request; `startedMs` from performance.now(). */
  record(startedMs: number): void;
}

type Source = 'memory' | 'database' | 'notModified';

/**
 * The service's Prometheus metrics, in a registry of its own (several services may share a test
 * process). Requests and lookups are counted in plain numbers and handed to prom-client when
 * /metrics is scraped: prom-client hashes and validates labels on every inc and observe, even on
 * `.labels(...)` children, which cost microseconds on a path that answers in tens of them.
 */
export class PadronMetrics {
  readonly registry = new Registry();
  private readonly pendingAnswers: Array<{ route: Route; status: string; pending: number }> = [];
  private readonly recorders = new Map<string, AnswerRecorder>();
  private readonly requests = new Counter({
    name: 'padron_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'status'],
    registers: [this.registry],
    collect: () => this.flushAnswers(),
  });
  private readonly latency = new LatencyTally<Route>('padron_http_request_duration_seconds', 'Time from request to response, by route', [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10,
  ]);
  private readonly pendingLookups: Record<Source, number> = { memory: 0, database: 0, notModified: 0 };
  private readonly lookups = new Counter({
    name: 'padron_lookups_total',
    help: 'CUITs looked up, by where the answer came from: the in-memory index (cache hit), the database, or a 304 that needed no lookup',
    labelNames: ['source'],
    registers: [this.registry],
    collect: () => this.flushLookups(),
  });
  private readonly rates = new Gauge({ name: 'padron_rates', help: 'Rates in the loads that answer today, by jurisdiction', labelNames: ['state'], registers: [this.registry] });
  private readonly published = new Gauge({ name: 'padron_last_publish_timestamp_seconds', help: 'Publish time of the newest load answering today, by jurisdiction', labelNames: ['state'], registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'padron_' });
    this.registry.registerMetric(this.latency.asMetric());
    const lookups = this.lookups;
    new Gauge({
      name: 'padron_lookup_cache_hit_ratio',
      help: 'Share of CUIT lookups answered without the database (in-memory index or 304)',
      registers: [this.registry],
      async collect() {
        const values = (await lookups.get()).values;
        const total = values.reduce((sum, value) => sum + value.value, 0);
        const database = values.find((value) => value.labels['source'] === 'database')?.value ?? 0;
        this.set(total === 0 ? 1 : (total - database) / total);
      },
    });
  }

  /** The recorder of `route` answering `status`: bind it once where the status is known. */
  answer(route: Route, status: number): AnswerRecorder {
    const key = `${route} ${status}`;
    let recorder = this.recorders.get(key);
    if (!recorder) {
      const counted = { route, status: String(status), pending: 0 };
      this.pendingAnswers.push(counted);
      const latency = this.latency.route(route);
      recorder = {
        record(startedMs: number) {
          counted.pending += 1;
          latency.observe((performance.now() - startedMs) / 1000);
        },
      };
      this.recorders.set(key, recorder);
    }
    return recorder;
  }

  /** One answered request; `startedMs` from performance.now(). Off the lookup paths, which bind theirs. */
  observe(route: Route, status: number, startedMs: number): void {
    this.answer(route, status).record(startedMs);
  }

  /** `padron_downloads_in_progress`, read from `inProgress` when scraped. */
  countDownloads(inProgress: () => number): void {
    new Gauge({
      name: 'padron_downloads_in_progress',
      help: 'Registry downloads being built or sent now (capped per client IP and overall)',
      registers: [this.registry],
      collect() {
        this.set(inProgress());
      },
    });
  }

  lookedUp(source: Source, cuits = 1): void {
    this.pendingLookups[source] += cuits;
  }

  private flushAnswers(): void {
    for (const counted of this.pendingAnswers) {
      if (counted.pending === 0) continue;
      this.requests.inc({ route: counted.route, status: counted.status }, counted.pending);
      counted.pending = 0;
    }
  }

  private flushLookups(): void {
    const pending = this.pendingLookups;
    for (const [source, label] of [['memory', 'memory'], ['database', 'database'], ['notModified', 'not_modified']] as const) {
      if (pending[source] > 0) this.lookups.inc({ source: label }, pending[source]);
      pending[source] = 0;
    }
  }

  /** Rows and publish time per jurisdiction of the view that answers today. */
  viewChanged(view: RegistryView): void {
    this.rates.reset();
    this.published.reset();
    const rows = new Map<string, number>();
    const newest = new Map<string, number>();
    const counted = new Set<number>();
    for (const slot of view.slots) {
      if (!counted.has(slot.load.loadId)) rows.set(slot.state, (rows.get(slot.state) ?? 0) + slot.load.rows);
      counted.add(slot.load.loadId);
      newest.set(slot.state, Math.max(newest.get(slot.state) ?? 0, slot.load.publishedAt.getTime() / 1000));
    }
    for (const [state, seconds] of newest) this.published.labels(state).set(seconds);
    for (const [state, count] of rows) this.rates.labels(state).set(count);
  }
}
