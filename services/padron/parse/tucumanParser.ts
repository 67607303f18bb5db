import type { LineParser, PadronRecord } from './padronRecord.ts';
import { NOT_ELEVEN_DIGITS, readCuit, withoutCuitHyphens } from './cuit.ts';
import { createYyyymmddReader } from './dates.ts';
import { createRateReader } from './rates.ts';
import { NOT_A_CUIT, rejection } from './lineChecks.ts';

/** ACREDITAN.TXT opens with this many lines of titles and column headings. */
export const TUCUMAN_HEADER_LINES = 7;

/** The placeholder Tucumán prints when a subject has no porcentaje. */
export const NO_PORCENTAJE = '-----';

const SHORTEST_LINE = 45; // columns up to the name (40) plus the 5-character porcentaje

/**
 * Tucumán's fixed-width ACREDITAN.TXT. Columns (0-based): CUIT [0,13), exento [13,16),
 * convenio [16,20), desde [20,28) and hasta [30,38) as AAAAMMDD, name from 40, and the porcentaje
 * in the last 5 characters: the name's width varies by one in real files, so the porcentaje is
 * read from the end, never from a fixed column.
 *
 * One porcentaje per CUIT, published as both perception and withholding. An exempt subject (`E`)
 * gets 0 whatever the column says. `-----` (no porcentaje, not exempt) is rejected with its own
 * reason rather than skipped: the load report then says how many subjects had no rate, and none
 * is published as 0 by mistake.
 */
export function createTucumanParser(): LineParser {
  const readDate = createYyyymmddReader();
  const readCommaRate = createRateReader(',');
  const readDotRate = createRateReader('.');
  return {
    layout: 'tucuman',
    parseLine(raw, lineNumber) {
      const line = raw.trimEnd();
      if (line.trim() === '') return null;
      const cuit = readCuit(withoutCuitHyphens(line.slice(0, 13).trim()));
      // Header lines are recognised by having no CUIT, so a file with fewer of them loses no row.
      if (cuit === NOT_ELEVEN_DIGITS && lineNumber <= TUCUMAN_HEADER_LINES) return null;
      if (line.length < SHORTEST_LINE) return rejection(lineNumber, 'line too short for the fixed-width layout');
      if (cuit < 0) return rejection(lineNumber, NOT_A_CUIT);
      const exempt = line.slice(13, 16).trim();
      if (exempt !== '' && exempt !== 'E') return rejection(lineNumber, 'invalid exento flag');
      const agreement = line.slice(16, 20).trim();
      if (agreement !== '' && agreement !== 'CM') return rejection(lineNumber, 'invalid convenio');
      const dateFrom = readDate(line.slice(20, 28));
      if (dateFrom === null) return rejection(lineNumber, 'invalid date (desde)');
      const dateTo = readDate(line.slice(30, 38));
      if (dateTo === null) return rejection(lineNumber, 'invalid date (hasta)');
      if (dateFrom > dateTo) return rejection(lineNumber, 'desde after hasta');
      const percentage = line.slice(line.length - 5).trim();
      let aliquot: string | null = '0';
      if (exempt !== 'E') {
        if (percentage === NO_PORCENTAJE) return rejection(lineNumber, 'no porcentaje (-----)');
        aliquot = readCommaRate(percentage) ?? readDotRate(percentage);
        if (aliquot === null) return rejection(lineNumber, 'invalid rate (porcentaje)');
      }
      const name = line.slice(40, line.length - 5).trim() || null;
      const kind = agreement === '' ? null : agreement;
      const records: PadronRecord[] = [
        { cuit, regime: 'P', aliquot, dateFrom, dateTo, published: null, removed: false, kind, group: null, name },
        { cuit, regime: 'R', aliquot, dateFrom, dateTo, published: null, removed: false, kind, group: null, name },
      ];
      return records;
    },
  };
}
