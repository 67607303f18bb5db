import type { RejectedLine } from './padronRecord.ts';

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
 * How many fields a line has as the parsers count them: one trailing separator (`…;X;`), which
 * some files add, is forgiven when it makes the line one field too many; where the layout
 * documents it (RGS, `documentedTrailing`) it is always dropped, or a line one field short would
 * pass with the separator standing in for the missing field. An empty last field that is part of
 * the count (CABA's empty razón social, `…;00;00;`) is a field like any other. Layout detection
 * counts the same way, so it never refuses a line the parser would take.
 */
export function countFields(fields: readonly string[], expected: number, documentedTrailing = false): number {
  const last = fields[fields.length - 1];
  const trailingEmpty = fields.length > 1 && last !== undefined && last.trim() === '';
  return trailingEmpty && (documentedTrailing || fields.length === expected + 1) ? fields.length - 1 : fields.length;
}

/**
 * Checks the field count as `countFields` does, dropping the forgiven trailing empty field in
 * place. The reason counts fields without a trailing empty one.
 */
export function fieldCountProblem(fields: string[], expected: number, documentedTrailing = false): string | null {
  const last = fields[fields.length - 1];
  const trailingEmpty = fields.length > 1 && last !== undefined && last.trim() === '';
  const drop = countFields(fields, expected, documentedTrailing) < fields.length;
  if (drop) fields.pop();
  if (fields.length === expected) return null;
  return `wrong field count (got ${fields.length - (trailingEmpty && !drop ? 1 : 0)}, expected ${expected})`;
}

/** The reason for a CUIT field that is not 11 digits (`readCuit` gave `NOT_ELEVEN_DIGITS`). */
export const NOT_A_CUIT = 'invalid CUIT (not 11 digits)';

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
