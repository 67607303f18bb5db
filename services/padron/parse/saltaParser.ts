import type { LineParser, PadronRecord, RegimeCode } from './padronRecord.ts';
import { readCuit, withoutCuitHyphens } from './cuit.ts';
import { createRateReader } from './rates.ts';
import { NOT_A_CUIT, fieldCountProblem, isBlank, orNull, rejection } from './lineChecks.ts';
import type { SaltaRateTable } from './saltaRates.ts';

/** The header of Salta's current risk file, columns separated by tabs. */
export const SALTA_RISK_HEADER = ['CUIT', 'DENOMINACION', 'ACTIVIDADES_ECONOMICAS', 'NIVEL_RIESGO_FISCAL'] as const;

/**
 * Salta's current risk file: `CUIT⇥DENOMINACION⇥CM|JU⇥RA|RB|SR` after a header. It holds no rates
 * and no dates: rates come from the province's table (validated by `validateSaltaRates`) and the
 * validity start from the file name (`… al DD-MM-YYYY.txt`). Activity goes to `kind`, the risk
 * level to `group`; one record per regime the table gives a rate for.
 */
export function createSaltaRiskParser(options: { rates: SaltaRateTable; dateFrom: string }): LineParser {
  const { rates, dateFrom } = options;
  return {
    layout: 'salta-risk',
    parseLine(line, lineNumber) {
      if (isBlank(line)) return null;
      const fields = splitTabs(line);
      if (isHeader(fields)) return null;
      const countProblem = fieldCountProblem(fields, 4);
      if (countProblem !== null) return rejection(lineNumber, countProblem);
      const cuit = readCuit(withoutCuitHyphens(fields[0] ?? ''));
      if (cuit < 0) return rejection(lineNumber, NOT_A_CUIT);
      const activity = fields[2];
      if (activity !== 'CM' && activity !== 'JU') return rejection(lineNumber, 'invalid activity (not CM or JU)');
      const risk = fields[3];
      if (risk !== 'RA' && risk !== 'RB' && risk !== 'SR') return rejection(lineNumber, 'invalid risk level (not RA, RB or SR)');
      const cell = rates[activity][risk];
      const name = orNull(fields[1] ?? '');
      const records: PadronRecord[] = [];
      for (const regime of ['P', 'R'] as const) {
        const aliquot = cell[regime];
        if (aliquot !== undefined) records.push({ cuit, regime, aliquot, dateFrom, dateTo: null, published: null, removed: false, kind: activity, group: risk, name });
      }
      return records;
    },
  };
}

/**
 * Salta's older file: `CUIT⇥name⇥percentage` after a header, dot decimal (a comma is read too),
 * perception only. The date, when the file name has one, is the validity start.
 */
export function createSaltaPercentageParser(options: { dateFrom: string | null }): LineParser {
  const { dateFrom } = options;
  const readDotRate = createRateReader('.');
  const readCommaRate = createRateReader(',');
  const regime: RegimeCode = 'P';
  return {
    layout: 'salta-percentage',
    parseLine(line, lineNumber) {
      if (isBlank(line)) return null;
      const fields = splitTabs(line);
      if (isHeader(fields)) return null;
      const countProblem = fieldCountProblem(fields, 3);
      if (countProblem !== null) return rejection(lineNumber, countProblem);
      const cuit = readCuit(withoutCuitHyphens(fields[0] ?? ''));
      if (cuit < 0) return rejection(lineNumber, NOT_A_CUIT);
      const percentage = fields[2] ?? '';
      const aliquot = readDotRate(percentage) ?? readCommaRate(percentage);
      if (aliquot === null) return rejection(lineNumber, 'invalid rate (porcentaje)');
      return [{ cuit, regime, aliquot, dateFrom, dateTo: null, published: null, removed: false, kind: null, group: null, name: orNull(fields[1] ?? '') }];
    },
  };
}

function splitTabs(line: string): string[] {
  const fields = line.split('\t');
  for (let i = 0; i < fields.length; i++) fields[i] = (fields[i] ?? '').trim();
  return fields;
}

/** A header names its first column; data rows start with a CUIT. */
function isHeader(fields: readonly string[]): boolean {
  return (fields[0] ?? '').toUpperCase() === 'CUIT';
}
