import { int, median, spread, table, verdict } from '../table.ts';
import type { RunTimes } from './migrationPlatform.ts';
import type { MigrationBenchOptions } from './options.ts';

/** One A-B-B-A pair: the raw restore and the migration run measured next to it. */
export interface Pair {
  rawMs: number;
  run: RunTimes;
  order: 'raw first' | 'migration first';
}

export interface MigrationReport {
  machine: string;
  options: MigrationBenchOptions;
  bytes: number;
  generatedMs: number;
  dumpBytes: number;
  dumpedMs: number;
  pairs: Pair[];
  checkRuns: RunTimes[];
  checks: number;
  loadBefore: string;
  loadAfter: string;
}

/** The target: the restore step, snapshot aside, within 10 % of a raw restore. */
const TARGET = 1.1;

const s = (ms: number) => (ms / 1000).toFixed(1);
const ratio = (value: number) => value.toFixed(3);
const mb = (bytes: number) => `${int(bytes / 1e6)} MB`;

export function renderMigrationReport(report: MigrationReport): string {
  const { pairs, checkRuns } = report;
  const restore = pairs.map((pair) => pair.run.steps.get('restore')!);
  const snapshot = pairs.map((pair) => pair.run.snapshotMs);
  const withoutSnapshot = pairs.map((pair, i) => restore[i]! - snapshot[i]!);
  const raw = pairs.map((pair) => pair.rawMs);
  const ratios = pairs.map((pair, i) => withoutSnapshot[i]! / pair.rawMs);
  const wholeRatios = pairs.map((pair, i) => restore[i]! / pair.rawMs);
  const fetch = pairs.map((pair) => pair.run.steps.get('fetch')!);
  const endToEnd = pairs.map((pair) => pair.run.endToEndMs);
  const queued = pairs.map((pair) => pair.run.queuedMs);
  const overheads = checkRuns.map((run) => run.overheadPerStepMs('restore'));
  const checkSteps = checkRuns.flatMap((run) => [...run.steps].filter(([step]) => step.startsWith('check_')).map(([, ms]) => ms));
  const row = (label: string, values: number[], format: (value: number) => string) => [label, format(median(values)), spread(values, format), String(values.length)];
  const medianRatio = median(ratios);
  const lines = [
    '',
    `bench:migrations — ${new Date().toISOString()}`,
    report.machine,
    `ERP-like database: ${mb(report.bytes)} generated in ${s(report.generatedMs)} s; pg_dump -Fc: ${s(report.dumpedMs)} s, ${mb(report.dumpBytes)}`,
    `${pairs.length} pairs, A-B-B-A (raw first in odd pairs); load average ${report.loadBefore} before, ${report.loadAfter} after`,
    '',
    ...table(
      ['figure', 'median', 'min–max', 'n'],
      [
        row('raw createdb + pg_restore --no-owner --no-acl (s)', raw, s),
        row('restore step, as recorded (s)', restore, s),
        row('  of which the checkpoint snapshot (s)', snapshot, s),
        row('restore step without the snapshot (s)', withoutSnapshot, s),
        row('ratio restore-without-snapshot ÷ raw, per pair', ratios, ratio),
        row('ratio whole restore step ÷ raw, per pair', wholeRatios, ratio),
        row('fetch step, http on 127.0.0.1 (s)', fetch, s),
        row('request → completed, fetch + restore (s)', endToEnd, s),
        row('  request → first step started (ms)', queued, int),
        row(`executor overhead per step, ${report.checks} checks (ms)`, overheads, int),
        row('  check step `select 1` (ms)', checkSteps, int),
      ],
      'lrrr',
    ),
    '',
    ...table(
      ['pair', 'order', 'raw (s)', 'restore (s)', 'snapshot (s)', 'ratio'],
      pairs.map((pair, i) => [String(i + 1), pair.order, s(pair.rawMs), s(restore[i]!), s(snapshot[i]!), ratio(ratios[i]!)]),
      'llrrrr',
    ),
    '',
    `checkpoint snapshot (CREATE DATABASE … TEMPLATE, then rename): ${s(median(snapshot))} s median, ${Math.round((median(snapshot) / median(raw)) * 100)} % of a raw restore`,
    `restore step ÷ raw, snapshot aside: ${ratio(medianRatio)} (target ≤ ${TARGET.toFixed(2)}): ${verdict(medianRatio <= TARGET)}`,
  ];
  return `${lines.join('\n')}\n`;
}
