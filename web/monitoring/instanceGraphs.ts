import { formatBytes } from '#shared/formatBytes.ts';
import { PrometheusUnavailable, queryRange, type PrometheusEndpoint, type Series } from './prometheusQuery.ts';
import { latestPoint, svgChart } from './svgChart.ts';

/** The periods the page offers; the default is what an operator checks after a complaint. */
export const RANGES = { '15m': 900, '1h': 3_600, '6h': 21_600, '24h': 86_400 } as const;
export type RangeName = keyof typeof RANGES;
export const DEFAULT_RANGE: RangeName = '6h';
/** Points per graph at most: enough for a graph half a page wide, little for Prometheus to compute. */
const POINTS = 240;

interface GraphSpec {
  heading: string;
  /** PromQL for the instance; the slug is checked ([a-z0-9-]) before it gets here. */
  expr: (slug: string) => string;
  format: (value: number) => string;
  /** The latest value in words: the graph's text alternative. */
  says: (value: number) => string;
  minimum?: number;
  maximum?: number;
}

const milliseconds = (seconds: number) => `${Math.round(seconds * 1000)} ms`;

/**
 * What an operator looks at first: is it up, how fast it answers, how much memory it holds and
 * how big its database grew. The numbers come from Forja's instance exporter and the PostgreSQL
 * exporter (services/monitoring), joined on the database name.
 */
const GRAPHS: GraphSpec[] = [
  { heading: 'Up or down', expr: (slug) => `forja_erp_up{instance_slug="${slug}"}`, format: (v) => (v >= 1 ? 'up' : 'down'), says: (v) => (v >= 1 ? 'up: it answered its health check' : 'down: it did not answer its health check'), minimum: 0, maximum: 1 },
  { heading: 'Response time', expr: (slug) => `forja_erp_health_seconds{instance_slug="${slug}"}`, format: milliseconds, says: (v) => `${milliseconds(v)} to answer /web/health` },
  { heading: 'Memory', expr: (slug) => `forja_erp_memory_bytes{instance_slug="${slug}"}`, format: formatBytes, says: (v) => `${formatBytes(v)} resident (server and workers)` },
  {
    heading: 'Database size',
    expr: (slug) => `pg_database_size_bytes * on (datname) group_left (instance_slug) forja_erp_database_info{instance_slug="${slug}"}`,
    format: formatBytes,
    says: (v) => `${formatBytes(v)} on disk`,
  },
];

export interface Graph {
  heading: string;
  /** Inline SVG, or '' when there is no data. */
  svg: string;
  /** The latest value in words with its time, or why there is none. */
  summary: string;
  hasData: boolean;
  /** The same query in Prometheus' own UI, through web's /monitoring proxy. */
  explore: string;
}

export type GraphsPage = { state: 'off' } | { state: 'unavailable'; reason: string } | { state: 'ok'; graphs: Graph[] };

export const rangeOf = (name: unknown): RangeName => (typeof name === 'string' && name in RANGES ? (name as RangeName) : DEFAULT_RANGE);

/** The instance's graphs over `range` up to `now` (seconds), from `prometheus` (undefined: monitoring is off). */
export async function instanceGraphs(prometheus: PrometheusEndpoint | undefined, slug: string, range: RangeName, now = Math.floor(Date.now() / 1000)): Promise<GraphsPage> {
  if (!prometheus) return { state: 'off' };
  const stepS = Math.max(5, Math.ceil(RANGES[range] / POINTS));
  let answers: Series[][];
  try {
    answers = await Promise.all(GRAPHS.map((graph) => queryRange(prometheus, graph.expr(slug), { start: now - RANGES[range], end: now, stepS })));
  } catch (error) {
    if (error instanceof PrometheusUnavailable) return { state: 'unavailable', reason: error.message };
    throw error;
  }
  return {
    state: 'ok',
    graphs: GRAPHS.map((graph, index) => {
      const series = answers[index]!;
      const latest = latestPoint(series);
      const explore = `/monitoring/graph?${new URLSearchParams({ 'g0.expr': graph.expr(slug), 'g0.tab': '0', 'g0.range_input': range }).toString()}`;
      if (!latest) return { heading: graph.heading, svg: '', summary: 'No data in this period.', hasData: false, explore };
      const at = new Date(latest.t * 1000).toISOString().slice(11, 16);
      const title = `${graph.heading} of ${slug} over the last ${range}`;
      const svg = svgChart(series, { title, format: graph.format, gapS: stepS * 2.5, ...(graph.minimum === undefined ? {} : { minimum: graph.minimum }), ...(graph.maximum === undefined ? {} : { maximum: graph.maximum }) });
      return { heading: graph.heading, svg, summary: `Latest (${at} UTC): ${graph.says(latest.v)}.`, hasData: true, explore };
    }),
  };
}
