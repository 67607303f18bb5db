import type { Metric } from 'prom-client';

/**
 * A Prometheus histogram by route whose observations are two array writes: prom-client's own
 * Histogram hashes its labels and validates them on every observe, even through `.labels(...)`
 * children, which cost more than the rest of a 304. The buckets are counted here in typed arrays
 * and turned into prom-client's exported shape only when /metrics is scraped.
 */
export class LatencyTally<Route extends string> {
  private readonly counts = new Map<Route, { buckets: Float64Array; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  /** The tally of one route, to keep and observe on without any lookup. */
  route(route: Route): { observe(seconds: number): void } {
    let tally = this.counts.get(route);
    if (!tally) this.counts.set(route, (tally = { buckets: new Float64Array(this.bounds.length), sum: 0, count: 0 }));
    const { bounds } = this;
    const held = tally;
    return {
      observe(seconds: number) {
        let bucket = 0;
        while (bucket < bounds.length && seconds > (bounds[bucket] ?? 0)) bucket++;
        if (bucket < bounds.length) held.buckets[bucket] = (held.buckets[bucket] ?? 0) + 1;
        held.sum += seconds;
        held.count += 1;
      },
    };
  }

  /** What prom-client's Registry reads of a metric: `get()` in Histogram's exported shape. */
  asMetric(): Metric {
    const { name, help, bounds, counts } = this;
    const metric = {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => {
        const values = [];
        for (const [route, tally] of counts) {
          let cumulative = 0;
          for (const [i, le] of bounds.entries()) {
            cumulative += tally.buckets[i] ?? 0;
            values.push({ labels: { le, route }, value: cumulative, metricName: `${name}_bucket` });
          }
          values.push({ labels: { le: '+Inf', route }, value: tally.count, metricName: `${name}_bucket` });
          values.push({ labels: { route }, value: tally.sum, metricName: `${name}_sum` });
          values.push({ labels: { route }, value: tally.count, metricName: `${name}_count` });
        }
        return { name, help, type: 'histogram', aggregator: 'sum', values };
      },
      reset: () => counts.clear(),
    };
    // The Registry reads only name, help, type and get(); prom-client's Metric type names its own classes.
    return metric as unknown as Metric;
  }
}
