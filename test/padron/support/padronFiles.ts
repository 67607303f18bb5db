import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cuitCheckDigit } from '#services/padron/parse/cuit.ts';
import { argentineDate } from '#services/padron/time.ts';
import { onTeardown } from '#test/support/teardown.ts';

/** A valid CUIT (right check digit) from its first ten digits, skipping numbers AFIP never issues. */
export function validCuit(firstTen: number): string {
  for (let ten = firstTen; ; ten++) {
    const digit = cuitCheckDigit(String(ten));
    if (digit !== null) return `${ten}${digit}`;
  }
}

/** The same ten digits with a wrong check digit. */
export function badCuit(firstTen: number): string {
  const good = validCuit(firstTen);
  return `${good.slice(0, 10)}${(Number(good.at(-1)) + 1) % 10}`;
}

/** A validity period: the Argentine calendar month `offset` months from now. */
export function monthPeriod(offset = 0): { from: string; to: string } {
  const [year = 0, month = 1] = argentineDate(Date.now()).split('-').map(Number);
  const first = new Date(Date.UTC(year, month - 1 + offset, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
  return { from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) };
}

/** `YYYY-MM-DD` → `DDMMYYYY`, as the agencies write dates. */
export const ddmmyyyy = (iso: string): string => `${iso.slice(8, 10)}${iso.slice(5, 7)}${iso.slice(0, 4)}`;

export interface RgsRow {
  cuit: string;
  rate: string;
  removed?: boolean;
  group?: string;
}

/** ARBA RGS lines (`P;pub;desde;hasta;CUIT;D;N;N;6,00;25;`). */
export function rgsLines(regime: 'P' | 'R', period: { from: string; to: string }, rows: RgsRow[]): string[] {
  return rows.map((row) => `${regime};${ddmmyyyy(period.from)};${ddmmyyyy(period.from)};${ddmmyyyy(period.to)};${row.cuit};D;${row.removed ? 'B' : 'N'};N;${row.rate};${row.group ?? '00'};`);
}

export interface AgipRow {
  cuit: string;
  perception: string;
  withholding: string;
  removed?: boolean;
  name?: string;
}

/** AGIP lines (CABA): `pub;desde;hasta;CUIT;C;S;N;3,00;3,00;00;00;NAME`. */
export function agipLines(period: { from: string; to: string }, rows: AgipRow[]): string[] {
  return rows.map((row) => `${ddmmyyyy(period.from)};${ddmmyyyy(period.from)};${ddmmyyyy(period.to)};${row.cuit};C;${row.removed ? 'B' : 'S'};N;${row.perception};${row.withholding};00;00;${row.name ?? 'ACME SA'}`);
}

/** A fresh folder for one suite's files, removed when the test run ends. */
export function fileFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'forja-padron-'));
  onTeardown(async () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** Writes lines with CRLF, Latin-1, as the agencies do. */
export function writeLines(folder: string, name: string, lines: string[]): string {
  const path = join(folder, name);
  writeFileSync(path, `${lines.join('\r\n')}\r\n`, 'latin1');
  return path;
}
