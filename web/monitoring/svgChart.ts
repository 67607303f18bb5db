import type { Series } from './prometheusQuery.ts';

export interface ChartOptions {
  /** The chart's accessible name (`Memory of acme-main`). */
  title: string;
  /** How a value reads (`1.2 GiB`, `35 ms`). */
  format: (value: number) => string;
  /** Consecutive points further apart than this (seconds) are not joined: the series had a gap. */
  gapS: number;
  /** The vertical axis starts at 0 unless told otherwise. */
  minimum?: number;
  /** Forces the top of the axis (up/down is 0..1). */
  maximum?: number;
  width?: number;
  height?: number;
}

const MARGIN = { left: 64, right: 12, top: 10, bottom: 24 };

const escapeXml = (text: string): string => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

const clock = (t: number): string => new Date(t * 1000).toISOString().slice(11, 16);

/**
 * A line chart as inline SVG, drawn from Prometheus' range answer on the server: a polyline per
 * run of points, the axis' bounds and the period's start and end times as text. It is an image
 * with a name (role="img", <title>); the figure around it states the latest value in words,
 * which is its text alternative. Colours are the text's (currentColor): readable in both themes.
 */
export function svgChart(series: Series[], options: ChartOptions): string {
  const width = options.width ?? 480;
  const height = options.height ?? 180;
  const points = series.flatMap((each) => each.points);
  const title = `<title>${escapeXml(options.title)}</title>`;
  if (points.length === 0) return `<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 ${width} ${height}" class="chart">${title}</svg>`;
  const ts = points.map((point) => point.t);
  const vs = points.map((point) => point.v);
  const [t0, t1] = [Math.min(...ts), Math.max(...ts)];
  const low = options.minimum ?? Math.min(0, ...vs);
  const high = options.maximum ?? Math.max(...vs);
  const span = high > low ? high - low : 1;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const x = (t: number) => MARGIN.left + (t1 > t0 ? ((t - t0) / (t1 - t0)) * plotW : plotW);
  const y = (v: number) => MARGIN.top + plotH - ((v - low) / span) * plotH;
  const round = (n: number) => Math.round(n * 10) / 10;
  const lines = series.flatMap((each) => {
    const runs: string[][] = [];
    let previous: number | undefined;
    for (const point of each.points) {
      if (previous === undefined || point.t - previous > options.gapS) runs.push([]);
      runs.at(-1)!.push(`${round(x(point.t))},${round(y(point.v))}`);
      previous = point.t;
    }
    return runs.map((run) =>
      run.length === 1
        ? `<circle cx="${run[0]!.split(',')[0]}" cy="${run[0]!.split(',')[1]}" r="2.5" fill="currentColor"/>`
        : `<polyline points="${run.join(' ')}" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/>`,
    );
  });
  const axis = [
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${MARGIN.top + plotH}" stroke="currentColor" stroke-opacity="0.4"/>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top + plotH}" x2="${width - MARGIN.right}" y2="${MARGIN.top + plotH}" stroke="currentColor" stroke-opacity="0.4"/>`,
    `<text x="${MARGIN.left - 6}" y="${MARGIN.top + 10}" text-anchor="end" font-size="13" fill="currentColor">${escapeXml(options.format(high))}</text>`,
    `<text x="${MARGIN.left - 6}" y="${MARGIN.top + plotH}" text-anchor="end" font-size="13" fill="currentColor">${escapeXml(options.format(low))}</text>`,
    `<text x="${MARGIN.left}" y="${height - 6}" font-size="13" fill="currentColor">${clock(t0)} UTC</text>`,
    `<text x="${width - MARGIN.right}" y="${height - 6}" text-anchor="end" font-size="13" fill="currentColor">${clock(t1)} UTC</text>`,
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 ${width} ${height}" class="chart">${title}${axis.join('')}${lines.join('')}</svg>`;
}

/** The newest point over all series, if any: what the figure says in words. */
export function latestPoint(series: Series[]): { t: number; v: number } | undefined {
  return series.flatMap((each) => each.points).reduce<{ t: number; v: number } | undefined>((latest, point) => (!latest || point.t >= latest.t ? point : latest), undefined);
}
