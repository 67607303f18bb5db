import { cpus, loadavg } from 'node:os';
import type { Pool } from '#shared/db.ts';
import type { BenchOptions } from './options.ts';
import { int, median, percent, spread, table, verdict } from './table.ts';
import { rate, type Figure } from './workload.ts';

export interface Machine {
  cores: number;
  cpu: string;
  node: string;
  postgres: string;
  /** Settings that move append figures the most; printed so two reports can be compared. */
  durability: string;
  /** Other work on the machine skews every figure; the load says whether there was any. */
  loadBefore: string;
  loadAfter?: string;
}

export interface BenchResults {
  options: BenchOptions;
  machine: Machine;
  single: Figure;
  concurrent: Figure;
  plain: Figure;
  locked: Figure;
  readAll: Figure;
  replays: Figure[];
}

/** Targets of the event-store design (see PERFORMANCE.md). */
const LOCK_ANCHOR_TARGET = 0.8;
const REPLAY_TARGET = 20_000;

export const loadAverage = (): string => loadavg().map((load) => load.toFixed(2)).join(' ');

export async function describeMachine(pool: Pool): Promise<Machine> {
  const setting = async (name: string) => (await pool.query<{ value: string }>('select current_setting($1) as value', [name])).rows[0]?.value ?? '?';
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model.trim() ?? '?',
    node: process.version,
    postgres: await setting('server_version'),
    durability: `synchronous_commit=${await setting('synchronous_commit')}, fsync=${await setting('fsync')}, wal_sync_method=${await setting('wal_sync_method')}`,
    loadBefore: loadAverage(),
  };
}

export function renderReport(results: BenchResults): string {
  const { machine, options, concurrent } = results;
  const best = fastest(results.replays);
  const lines = [
    `Forja event-store benchmark — ${int(options.events)} events`,
    `machine   ${machine.cores} cores (${machine.cpu}), Node ${machine.node}, PostgreSQL ${machine.postgres}`,
    `postgres  ${machine.durability}`,
    `load      ${machine.loadBefore} before, ${machine.loadAfter ?? '?'} after (1/5/15 min)`,
    `method    write rows interleaved in ${options.rounds} rounds (CHECKPOINT first); "rounds" = slowest–fastest slice;`,
    `          ratios compare slices of the same round, PASS/MISS on their median (robust to bursts of other load)`,
    `columns   server CPU/op: CPU time of the workload's own backends (/proc) per op; WAL/op: WAL bytes per op`,
    '',
    ...table(
      ['measurement', 'events', 'seconds', 'per second', 'rounds', 'server CPU/op', 'WAL/op'],
      [results.single, concurrent, results.locked, results.plain, results.readAll, ...results.replays].map(figureRow),
      'lrrrrrr',
    ),
    '',
    ...table(
      ['ratio', 'overall', 'median', 'rounds', 'target', ''],
      [
        ratioRow('8-writer appends ÷ lock anchor', concurrent, results.locked, LOCK_ANCHOR_TARGET),
        ratioRow('8-writer appends ÷ no-lock anchor', concurrent, results.plain),
        ratioRow('1-writer appends ÷ 8-writer appends', results.single, concurrent),
        [`replay (best: batch ${int(batchOf(best))})`, `${int(rate(best))}/s`, '', '', `≥ ${int(REPLAY_TARGET)}/s`, verdict(rate(best) >= REPLAY_TARGET)],
      ],
      'lrrrrl',
    ),
  ];
  return `${lines.join('\n')}\n`;
}

const micros = (value: number | undefined) => (value === undefined ? '' : `${int(value)} µs`);
const bytes = (value: number | undefined) => (value === undefined ? '' : `${int(value)} B`);

function figureRow(figure: Figure): string[] {
  const { label, count, seconds, rounds, cpuPerOp, walPerOp } = figure;
  return [label, int(count), seconds.toFixed(1), int(rate(figure)), spread(rounds ?? [], int), micros(cpuPerOp), bytes(walPerOp)];
}

/** `numerator ÷ denominator` overall, and per round (slices run minutes apart are not compared). */
function ratioRow(label: string, numerator: Figure, denominator: Figure, target?: number): string[] {
  const ratios = roundRatios(numerator, denominator);
  const cells = [label, percent(rate(numerator) / rate(denominator)), percent(median(ratios)), spread(ratios, percent)];
  if (target === undefined) return [...cells, '—', ''];
  return [...cells, `≥ ${percent(target)}`, verdict(median(ratios) >= target)];
}

function roundRatios(numerator: Figure, denominator: Figure): number[] {
  return (numerator.rounds ?? []).flatMap((value, round) => {
    const other = denominator.rounds?.[round];
    return other ? [value / other] : [];
  });
}

function fastest(figures: Figure[]): Figure {
  const [first, ...rest] = figures;
  if (!first) throw new Error('no replay was measured');
  return rest.reduce((best, figure) => (rate(figure) > rate(best) ? figure : best), first);
}

/** Replay labels end with their batch size; reading it back keeps Figure free of replay-only fields. */
function batchOf(figure: Figure): number {
  return Number(/batch ([\d,]+)$/.exec(figure.label)?.[1]?.replaceAll(',', '') ?? 0);
}
