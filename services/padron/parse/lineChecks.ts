import type { RejectedLine } from './padronRecord.ts';
import { BAD_CHECK_DIGIT, NOT_ELEVEN_DIGITS } from './cuit.ts';

/**
 * What the delimited parsers share. Reasons are a small fixed vocabulary (a field name at most,
 * never the value) because the load report counts rejects per reason.
 */
export function rejection(line: number, reason: string): RejectedLine {
  return { line, reason };
}

/** True for a line with nothing but blanks: skipped, never rejected. */
export function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) > 32) return false;
  return true;
}

/**
 * Checks the field count, forgiving one trailing separator (`…;X;`), which some files add: the
 * extra empty field is dropped in place. Where the layout documents the trailing separator (RGS),
 * pass `documentedTrailing` so it is always dropped first; otherwise a line one field short would
 * pass, the separator standing in for the missing field. The reason counts fields without that
 * trailing empty one.
 */
export function fieldCountProblem(fields: string[], expected: number, documentedTrailing = false): string | null {
  const last = fields[fields.length - 1];
  const trailingEmpty = fields.length > 1 && last !== undefined && last.trim() === '';
  const drop = trailingEmpty && (documentedTrailing || fields.length === expected + 1);
  if (drop) fields.pop();
  if (fields.length === expected) return null;
  return `wrong field count (got ${fields.length - (trailingEmpty && !drop ? 1 : 0)}, expected ${expected})`;
}

/** The reason for a negative `readCuit` result. */
export function cuitProblem(code: number): string {
  if (code === BAD_CHECK_DIGIT) return 'invalid check digit';
  return code === NOT_ELEVEN_DIGITS ? 'invalid CUIT (not 11 digits)' : 'invalid CUIT';
}

/**
 * Marca alta: `B` means *baja* (removed); `S`/`N` are the documented others, Santa Fe writes `-`
 * and blanks occur. Returns undefined for anything else, which signals shifted columns.
 */
export function readRemovedMark(field: string): boolean | undefined {
  if (field === 'B') return true;
  return field === 'S' || field === 'N' || field === '-' || field === '' ? false : undefined;
}

/** Marca alícuota (did the rate change): only checked, it is not part of the record. */
export function isRateChangeMark(field: string): boolean {
  return field === 'S' || field === 'N' || field === '-' || field === '';
}

/** Empty metadata becomes null rather than `''`, so the database stores NULL. */
export function orNull(field: string): string | null {
  return field === '' ? null : field;
}
