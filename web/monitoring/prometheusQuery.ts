/** One point of a series: seconds since the epoch and the value. */
export interface Point {
  t: number;
  v: number;
}

/** A range query's series, as Prometheus' matrix gives it. */
export interface Series {
  labels: Record<string, string>;
  points: Point[];
}

/** Where web reaches Prometheus' API: its URL (the /monitoring prefix included) and the `Authorization` header it asks for. */
export interface PrometheusEndpoint {
  url: string;
  /** The monitoring secret as a Basic header (services/shared/monitoring/monitoringSecret.ts); unset: none is sent. */
  authorization?: string;
}

/** Prometheus did not answer, or answered an error: the page says so instead of drawing. */
export class PrometheusUnavailable extends Error {
  override readonly name = 'PrometheusUnavailable';
}

const QUERY_TIMEOUT_MS = 5_000;

interface MatrixAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
}

/**
 * `GET <prometheus>/api/v1/query_range`: server-side, so the page needs no script and no chart
 * library. Values Prometheus writes as NaN or ±Inf are dropped (a graph cannot place them).
 */
export async function queryRange(prometheus: PrometheusEndpoint, expr: string, range: { start: number; end: number; stepS: number }): Promise<Series[]> {
  const params = new URLSearchParams({ query: expr, start: String(range.start), end: String(range.end), step: String(range.stepS) });
  let answer: MatrixAnswer;
  try {
    const headers: Record<string, string> = prometheus.authorization ? { authorization: prometheus.authorization } : {};
    const response = await fetch(`${prometheus.url}/api/v1/query_range?${params.toString()}`, { headers, signal: AbortSignal.timeout(QUERY_TIMEOUT_MS) });
    // exporter-toolkit answers a refused login with text, not JSON: name it instead of a parse error.
    if (response.status === 401) {
      await response.body?.cancel();
      answer = { status: 'web\'s monitoring login was refused (401)' };
    } else answer = (await response.json()) as MatrixAnswer;
  } catch (error) {
    throw new PrometheusUnavailable(`Prometheus does not answer: ${(error as Error).message}`);
  }
  if (answer.status !== 'success' || answer.data?.resultType !== 'matrix') throw new PrometheusUnavailable(`Prometheus refused the query: ${answer.error ?? answer.status}`);
  return answer.data.result.map((series) => ({
    labels: series.metric,
    points: series.values.map(([t, v]) => ({ t, v: Number(v) })).filter((point) => Number.isFinite(point.v)),
  }));
}
