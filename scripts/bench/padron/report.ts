import type { HttpFigure } from './httpLoad.ts';
import type { ImportFigure } from './imports.ts';
import type { PadronBenchOptions } from './options.ts';
import { roundRatio, type RoundFigure } from './rounds.ts';
import { int, percent, table, verdict } from '../table.ts';

export interface PadronBenchResults {
  machine: string;
  options: PadronBenchOptions;
  imports: Array<ImportFigure & { rawCopySeconds: number }>;
  service: { readySeconds: number; rssMb: number; rates: number };
  constant: RoundFigure;
  hits: RoundFigure;
  misses: RoundFigure;
  notModified: RoundFigure;
  batchSerial: HttpFigure;
  batchConcurrent: HttpFigure;
  pkLookups: number;
  loadBefore: string;
  loadAfter: string;
}

/** Targets of issue 4, with the lookup shares of issue 31. */
const IMPORT_RATE = 300_000;
const IMPORT_RSS_MB = 300;
const HIT_SHARE = 0.85;
const HIT_P99_MS = 5;
const MISS_SHARE = 0.95;
const NOT_MODIFIED_SHARE = 1;
const BATCH_P50_MS = 10;
/**
 * The CI guard (`--quick`): a hit may cost the server at most this many times the anchor's answer
 * in the same run. Generous on purpose: it catches a hot path that doubled again, never noise.
 */
export const CPU_GUARD = 2;

/** Whether server CPU per hit stays within CPU_GUARD × the anchor's. */
export function cpuGuardHolds(results: Pick<PadronBenchResults, 'constant' | 'hits'>): boolean {
  return results.hits.cpuMicrosPerRequest <= CPU_GUARD * results.constant.cpuMicrosPerRequest;
}

export function renderPadronReport(results: PadronBenchResults): string {
  const { imports, constant, options } = results;
  const rows = imports.reduce((sum, figure) => sum + figure.load.rowsLoaded, 0);
  const seconds = imports.reduce((sum, figure) => sum + figure.seconds, 0);
  const rawSeconds = imports.reduce((sum, figure) => sum + figure.rawCopySeconds, 0);
  const peakRss = Math.max(...imports.map((figure) => figure.peakRssMb));
  const http = [results.hits, results.misses, results.notModified];
  const share = (figure: RoundFigure) => roundRatio(figure, constant);
  const lines = [
    `Forja padrón benchmark — ${int(imports.reduce((sum, figure) => sum + figure.file.lines, 0))} lines, ${int(rows)} rates`,
    `machine   ${results.machine}`,
    `load      ${results.loadBefore} before, ${results.loadAfter} after (1/5/15 min)`,
    '',
    'import: `npm run padron -- import` in its own process per file (hash, parse, COPY, key, publish; seconds from the load report)',
    ...table(
      ['file', 'state', 'lines', 'rates', 'seconds', 'rates/s', 'peak RSS', 'raw COPY s', '÷ raw COPY'],
      [
        ...imports.map((figure) => [
          figure.file.file,
          `${figure.file.state}${figure.file.regime ?? ''}`,
          int(figure.file.lines),
          int(figure.load.rowsLoaded),
          figure.seconds.toFixed(2),
          int(figure.load.rowsLoaded / figure.seconds),
          `${figure.peakRssMb} MB`,
          figure.rawCopySeconds.toFixed(2),
          percent(figure.rawCopySeconds / figure.seconds),
        ]),
        ['all files', '', '', int(rows), seconds.toFixed(2), int(rows / seconds), `${peakRss} MB`, rawSeconds.toFixed(2), percent(rawSeconds / seconds)],
      ],
      'llrrrrrrr',
    ),
    '',
    `lookup service: \`npm run padron -- serve\` in its own process; ready in ${results.service.readySeconds.toFixed(1)} s with ${int(results.service.rates)} rates in memory, RSS ${Math.round(results.service.rssMb)} MB`,
    `method: autocannon, ${options.connections} connections; the anchor and the three lookups interleaved in ${options.rounds} rounds of ${Math.max(1, Math.round(options.seconds / options.rounds))} s (${options.seconds} s each in all); ratio = median of per-round ratios; p50 = median round, p99 = worst round; batches ${options.seconds} s each;`,
    '  server CPU/req = CPU time of the serving process per answer (steadier than req/s when other work shares the machine); constant ÷ it = the req/s share that CPU cost allows',
    ...table(
      ['measurement', 'req/s', 'p50 ms', 'p99 ms', '÷ constant JSON', 'server CPU/req', 'constant ÷ it'],
      [
        [constant.label, int(constant.requestsPerSecond), ms(constant.p50), ms(constant.p99), '100 %', micros(constant.cpuMicrosPerRequest), '100 %'],
        ...http.map((figure) => [figure.label, int(figure.requestsPerSecond), ms(figure.p50), ms(figure.p99), percent(share(figure)), micros(figure.cpuMicrosPerRequest), percent(constant.cpuMicrosPerRequest / figure.cpuMicrosPerRequest)]),
        [results.batchSerial.label, int(results.batchSerial.requestsPerSecond), ms(results.batchSerial.p50), ms(results.batchSerial.p99), ''],
        [results.batchConcurrent.label, `${int(results.batchConcurrent.requestsPerSecond * 500)} CUITs/s`, ms(results.batchConcurrent.p50), ms(results.batchConcurrent.p99), ''],
        ['anchor: PK lookups through pg, named statement, pool 8, 64 in flight', int(results.pkLookups), '', '', percent(results.pkLookups / constant.requestsPerSecond)],
      ],
      'lrrrrrr',
    ),
    '',
    ...table(
      ['target', 'measured', 'verdict'],
      [
        [`import ≥ ${int(IMPORT_RATE)} rates/s end to end (all files)`, `${int(rows / seconds)}/s`, verdict(rows / seconds >= IMPORT_RATE)],
        [`import peak RSS < ${IMPORT_RSS_MB} MB (every file)`, `${peakRss} MB`, verdict(peakRss < IMPORT_RSS_MB)],
        [`single hits ≥ ${percent(HIT_SHARE)} of constant JSON, p99 < ${HIT_P99_MS} ms`, `${percent(share(results.hits))}, ${ms(results.hits.p99)} ms`, verdict(share(results.hits) >= HIT_SHARE && results.hits.p99 < HIT_P99_MS)],
        [`single misses ≥ ${percent(MISS_SHARE)} of constant JSON`, percent(share(results.misses)), verdict(share(results.misses) >= MISS_SHARE)],
        [`304 revalidations ≥ ${percent(NOT_MODIFIED_SHARE)} of constant JSON`, percent(share(results.notModified)), verdict(share(results.notModified) >= NOT_MODIFIED_SHARE)],
        [`batch-500 p50 < ${BATCH_P50_MS} ms at concurrency 1`, `${ms(results.batchSerial.p50)} ms`, verdict(results.batchSerial.p50 < BATCH_P50_MS)],
        [
          `guard (--quick fails on MISS): server CPU per hit ≤ ${CPU_GUARD}× the anchor's`,
          `${micros(results.hits.cpuMicrosPerRequest)} vs ${micros(results.constant.cpuMicrosPerRequest)}`,
          verdict(cpuGuardHolds(results)),
        ],
      ],
      'lrl',
    ),
  ];
  return `${lines.join('\n')}\n`;
}

const micros = (value: number) => `${Math.round(value)} µs`;
/** autocannon reports whole milliseconds; decimals only when it gave some. */
const ms = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
