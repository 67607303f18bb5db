import { CHECK_DIGIT_WARNING } from '#services/padron/import/feedRecords.ts';
import type { RegimeCode, StateCode } from '#services/padron/parse/padronRecord.ts';
import type { Random } from './random.ts';

/** What a generated file must produce when parsed: the round-trip test's oracle. */
export interface FileExpectation {
  file: string;
  state: StateCode;
  /** Set for one-regime files (B, X) whose name alone would not say. */
  regime?: RegimeCode;
  lines: number;
  records: number;
  rejects: Record<string, number>;
  /** Lines loaded with a warning, by reason: the bad check digits, kept. */
  warnings: Record<string, number>;
  bytes: number;
}

/** How one data row is written: right, or with one of the defects a real file has. */
export type RowKind = 'valid' | 'invalid-check-digit' | 'truncated' | 'invalid-date';

/** What every format's line generator draws from. */
export interface GeneratorContext {
  random: Random;
  /** Share of rows whose CUIT has a wrong check digit. */
  invalidShare: number;
}

/** Counts lines, records, rejects and warnings while a format's lines are produced. */
export function createTally(): Omit<FileExpectation, 'file' | 'state' | 'regime' | 'bytes'> & { reject(reason: string): void; warn(reason: string): void } {
  const tally = {
    lines: 0,
    records: 0,
    rejects: {} as Record<string, number>,
    warnings: {} as Record<string, number>,
    reject(reason: string) {
      tally.rejects[reason] = (tally.rejects[reason] ?? 0) + 1;
    },
    warn(reason: string) {
      tally.warnings[reason] = (tally.warnings[reason] ?? 0) + 1;
    },
  };
  return tally;
}

/**
 * The kind of row `index` of `count`: two malformed lines per file at fixed places (a line cut
 * short, an impossible date) and a random share of bad check digits.
 */
export function rowKind(index: number, count: number, context: GeneratorContext): RowKind {
  if (count >= 10 && index === Math.floor(count / 3)) return 'truncated';
  if (count >= 10 && index === Math.floor((2 * count) / 3)) return 'invalid-date';
  return context.random.chance(context.invalidShare) ? 'invalid-check-digit' : 'valid';
}

/** An impossible date (31 February) in the layout's order. */
export const IMPOSSIBLE_DDMMYYYY = '31022026';
export const IMPOSSIBLE_YYYYMMDD = '20260231';

/** The validity period every generated file declares: June 2026, published late in May. */
export const PERIOD = {
  published: '25052026',
  from: '01062026',
  to: '30062026',
  fromIso: '2026-06-01',
  monthYear: '062026',
  yearMonth: '202606',
} as const;

/** Rejection texts of the two malformed lines, as the layout's parser words them. */
export interface MalformedReasons {
  truncated: string;
  invalidDate: string;
}

/**
 * Counts a row written as `kind` that yields `records` records when well formed. A bad check digit
 * is kept with a warning, unless the row is `removed` (marca alta B): then nothing of it is kept.
 */
export function countRow(tally: ReturnType<typeof createTally>, kind: RowKind, records: number, reasons: MalformedReasons, removed = false): void {
  tally.lines++;
  switch (kind) {
    case 'valid':
      tally.records += records;
      break;
    case 'invalid-check-digit':
      tally.records += records;
      if (!removed) tally.warn(CHECK_DIGIT_WARNING);
      break;
    case 'truncated':
      tally.reject(reasons.truncated);
      break;
    case 'invalid-date':
      tally.reject(reasons.invalidDate);
      break;
  }
}

/** The first `fields` fields of a delimited line: a line cut short in transfer. */
export function truncate(line: string, separator: string, fields: number): string {
  return line.split(separator).slice(0, fields).join(separator);
}
