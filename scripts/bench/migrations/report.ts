import { int, median, spread, table, verdict } from '../table.ts';
import type { RunTimes } from './migrationPlatform.ts';
import type { MigrationBenchOptions } from './options.ts';

/** One A-B-B-A pair: the raw restores (serial and `-j 2`) and the migration run measured next to them. */
export interface Pair {
  rawMs: number;
  rawJ2Ms: number;
  run: RunTimes;
  order: 'raw first' | 'migration first';
}

/** A fixed-and-resumed run of the failing upgrade and a full re-run of the fixed one, one after the other. */
export interface ResumePair {
  full: RunTimes;
  resume: RunTimes;
  order: 'full first' | 'resume first';
}

export interface MigrationReport {
  machine: string;
  options: MigrationBenchOptions;
  bytes: number;
  generatedMs: number;
  dumpBytes: number;
  dumpedMs: number;
  pairs: Pair[];
  resumes: ResumePair[];
  checkRuns: RunTimes[];
  checks: number;
  loadBefore: string;
  loadAfter: string;
}

/** Issue 31's target: the restore step, snapshot aside, within 5 % of the faster raw restore (serial or `-j 2`). */
const TARGET = 1.05;
/** Issue 31's target: a resume after a fix costs at most a quarter of a full re-run from fetch. */
const RESUME_TARGET = 0.25;

const s = (ms: number) => (ms / 1000).toFixed(1);
/** A table of figures: label, median, range, count. */
const figures = (rows: string[][]) => table(['figure', 'median', 'min–max', 'n'], rows, 'lrrr');
const ratio = (value: number) => value.toFixed(3);
const mb = (bytes: number) => `${int(bytes / 1e6)} MB`;

export function renderMigrationReport(report: MigrationReport): string {
  const { pairs, checkRuns } = report;
  const restore = pairs.map((pair) => pair.run.steps.get('restore')!);
  const snapshot = pairs.map((pair) => pair.run.snapshotMs);
  const withoutSnapshot = pairs.map((pair, i) => restore[i]! - snapshot[i]!);
  const raw = pairs.map((pair) => pair.rawMs);
  const rawJ2 = pairs.map((pair) => pair.rawJ2Ms);
  const faster = pairs.map((pair) => Math.min(pair.rawMs, pair.rawJ2Ms));
  const ratios = pairs.map((pair, i) => withoutSnapshot[i]! / faster[i]!);
  const wholeRatios = pairs.map((pair, i) => restore[i]! / faster[i]!);
  const { resumes } = report;
  const fullRuns = resumes.map((pair) => pair.full.endToEndMs);
  const resumed = resumes.map((pair) => pair.resume.endToEndMs);
  const resumeRatios = resumes.map((pair) => pair.resume.endToEndMs / pair.full.endToEndMs);
  const lastStep = resumes.map((pair) => pair.resume.steps.get('upgrade_indexes') ?? Number.NaN);
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
    ...figures([
        row('raw createdb + pg_restore --no-owner --no-acl (s)', raw, s),
        row('raw, pg_restore -j 2 (s)', rawJ2, s),
        row('restore step, as recorded (s)', restore, s),
        row('  of which the checkpoint snapshot (s)', snapshot, s),
        row('restore step without the snapshot (s)', withoutSnapshot, s),
        row('ratio restore-without-snapshot ÷ faster raw, per pair', ratios, ratio),
        row('ratio whole restore step ÷ faster raw, per pair', wholeRatios, ratio),
        row('fetch step, http on 127.0.0.1 (s)', fetch, s),
        row('request → completed, fetch + restore (s)', endToEnd, s),
        row('  request → first step started (ms)', queued, int),
        row(`executor overhead per step, ${report.checks} checks (ms)`, overheads, int),
        row('  check step `select 1` (ms)', checkSteps, int),
    ]),
    '',
    ...table(
      ['pair', 'order', 'raw (s)', 'raw -j 2 (s)', 'restore (s)', 'snapshot (s)', 'ratio'],
      pairs.map((pair, i) => [String(i + 1), pair.order, s(pair.rawMs), s(pair.rawJ2Ms), s(restore[i]!), s(snapshot[i]!), ratio(ratios[i]!)]),
      'llrrrrr',
    ),
    '',
    `checkpoint snapshot (CREATE DATABASE … TEMPLATE, then rename): ${s(median(snapshot))} s median, ${Math.round((median(snapshot) / median(raw)) * 100)} % of a raw restore`,
    `restore step ÷ the faster raw restore, snapshot aside: ${ratio(medianRatio)} (target ≤ ${TARGET.toFixed(2)}): ${verdict(medianRatio <= TARGET)}`,
    ...(resumes.length === 0
      ? []
      : [
          '',
          'an upgrade failing at its last step (after its work), fixed in the recipe and resumed, against a full re-run of the fixed recipe from fetch:',
          ...figures([
              row('full re-run, request → migrated (s)', fullRuns, s),
              row('fix + resume, request → migrated (s)', resumed, s),
              row('  of which the failed step again (s)', lastStep, s),
              row('ratio resume ÷ full re-run, per pair', resumeRatios, ratio),
          ]),
          `resume ÷ full re-run: ${ratio(median(resumeRatios))} (target ≤ ${RESUME_TARGET.toFixed(2)}): ${verdict(median(resumeRatios) <= RESUME_TARGET)}`,
        ]),
  ];
  return `${lines.join('\n')}\n`;
}
