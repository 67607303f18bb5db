import type { RejectedLine } from './padronRecord.ts';
import { readCuit } from './cuit.ts';
import type { DateReader } from './dates.ts';
import { NOT_A_CUIT, rejection } from './lineChecks.ts';

/** The columns every `;` layout starts with: publication, validity and CUIT, already checked. */
export interface LineHead {
  published: string;
  dateFrom: string;
  dateTo: string;
  cuit: number;
}

/**
 * Reads `pub;desde;hasta;CUIT` starting at field `at` (0 for AGIP, 1 after RGS's and LUA's
 * regime letter). Fields must already be trimmed.
 */
export function readLineHead(fields: readonly string[], at: number, lineNumber: number, readDate: DateReader): LineHead | RejectedLine {
  const published = readDate(fields[at] ?? '');
  if (published === null) return rejection(lineNumber, 'invalid date (publicacion)');
  const dateFrom = readDate(fields[at + 1] ?? '');
  if (dateFrom === null) return rejection(lineNumber, 'invalid date (desde)');
  const dateTo = readDate(fields[at + 2] ?? '');
  if (dateTo === null) return rejection(lineNumber, 'invalid date (hasta)');
  if (dateFrom > dateTo) return rejection(lineNumber, 'desde after hasta');
  const cuit = readCuit(fields[at + 3] ?? '');
  if (cuit < 0) return rejection(lineNumber, NOT_A_CUIT);
  return { published, dateFrom, dateTo, cuit };
}

/** Narrows `readLineHead`'s result. */
export function isRejection(value: LineHead | RejectedLine): value is RejectedLine {
  return 'reason' in value;
}

/**
 * Splits on `;` and trims every field in place (FORMATS.md: trim every field). Most fields have no
 * blanks, and looking at both ends first is cheaper than calling trim on all of them.
 */
export function splitTrimmed(line: string): string[] {
  const fields = line.split(';');
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? '';
    if (field.length > 0 && (field.charCodeAt(0) <= 32 || field.charCodeAt(field.length - 1) <= 32)) fields[i] = field.trim();
  }
  return fields;
}
