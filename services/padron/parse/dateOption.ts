import type { LineParser } from './padronRecord.ts';
import { PadronFormatError } from './padronFormatError.ts';
import { saltaDateByFileName } from './fileNames.ts';
import { createYyyymmddReader } from './dates.ts';

/**
 * `--date YYYY-MM-DD`, the first day a file's rates apply, is for files that do not say: Salta's
 * carry no dates in their rows, only (usually) in their name. Where the name or the rows do carry
 * the period, the option may only repeat it: a different date is refused rather than believed.
 */

/** The validity start of a Salta file: `date` when given, else its name's; null when neither. */
export function saltaDateFrom(fileName: string, date: string | undefined): string | null {
  const byName = saltaDateByFileName(fileName);
  if (date === undefined) return byName;
  assertIsoDate(date);
  if (byName !== null && byName !== date) {
    throw new PadronFormatError(`'${fileName}' is dated ${byName} by its name, but --date ${date} was given; leave --date out, or rename the file if its name is wrong`);
  }
  return date;
}

/**
 * Refuses `date` for a file whose rows carry their own period when none of the sampled rows
 * starts on it. Reads the sample with the file's own parser, so it sees the dates the import would.
 */
export function assertDateAgreesWithRows(fileName: string, parser: LineParser, sample: readonly string[], date: string | undefined): void {
  if (date === undefined) return;
  assertIsoDate(date);
  const starts = new Set<string>();
  sample.forEach((line, i) => {
    const parsed = parser.parseLine(line, i + 1);
    if (Array.isArray(parsed)) for (const record of parsed) if (record.dateFrom !== null) starts.add(record.dateFrom);
  });
  if (starts.size === 0 || starts.has(date)) return;
  const found = [...starts].sort().join(', ');
  throw new PadronFormatError(`'${fileName}' carries its own period (its rows apply from ${found}), and --date ${date} disagrees with it; leave --date out`);
}

function assertIsoDate(date: string): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || createYyyymmddReader()(date.replaceAll('-', '')) === null) {
    throw new PadronFormatError(`--date must be a date written YYYY-MM-DD, the first day the file's rates apply (got ${JSON.stringify(date)})`);
  }
}
