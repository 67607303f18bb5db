import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RegistryView } from '../lookup/registry.ts';

export type Route = 'cuit' | 'cuits' | 'download' | 'health' | 'metrics' | 'docs' | 'openapi' | 'other';

/**
 * The service's Prometheus metrics, in a registry of its own (several services may share a test
 * process). The lookup paths record through cached label children: no label hashing per request.
 */
export class PadronMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({ name: 'padron_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['route', 'status'], registers: [this.registry] });
  private readonly latency = new Histogram({
    name: 'padron_http_request_duration_seconds',
    help: 'Time from request to response, by route',
    labelNames: ['route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  private readonly lookups = new Counter({
    name: 'padron_lookups_total',
    help: 'CUITs looked up, by where the answer came from: the in-memory index (cache hit), the database, or a 304 that needed no lookup',
    labelNames: ['source'],
    registers: [this.registry],
  });
  private readonly rates = new Gauge({ name: 'padron_rates', help: 'Rates in the loads that answer today, by jurisdiction', labelNames: ['state'], registers: [this.registry] });
  private readonly published = new Gauge({ name: 'padron_last_publish_timestamp_seconds', help: 'Publish time of the newest load answering today, by jurisdiction', labelNames: ['state'], registers: [this.registry] });
  private readonly children = new Map<Route, Map<number, { count: Counter.Internal; time: Histogram.Internal<string> }>>();
  private readonly lookupSources = { memory: this.lookups.labels('memory'), database: this.lookups.labels('database'), notModified: this.lookups.labels('not_modified') };

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'padron_' });
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

  /** One answered request; `startedMs` from performance.now(). */
  observe(route: Route, status: number, startedMs: number): void {
    let byStatus = this.children.get(route);
    if (!byStatus) this.children.set(route, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = { count: this.requests.labels(route, String(status)), time: this.latency.labels(route) }));
    child.count.inc();
    child.time.observe((performance.now() - startedMs) / 1000);
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

  lookedUp(source: 'memory' | 'database' | 'notModified', cuits = 1): void {
    this.lookupSources[source].inc(cuits);
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
