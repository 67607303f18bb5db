import type { RegimeCode, StateCode } from './padronRecord.ts';
import { readDashedDdmmyyyy } from './dates.ts';

/**
 * What the agencies' file names tell. Names are matched on their base name only, case-insensitively
 * and without accents (Córdoba's `Régimen de percepción.txt` often arrives mangled by a ZIP tool),
 * so only the stable ASCII parts are looked at.
 */
const NAMING: ReadonlyArray<{ state: StateCode; pattern: RegExp; example: string }> = [
  { state: 'C', pattern: /^ARDJU/i, example: 'ARDJU008MMAAAA.TXT' },
  { state: 'B', pattern: /^PadronRGS(Per|Ret)/i, example: 'PadronRGSPerMMAAAA.TXT' },
  { state: 'T', pattern: /^(ACREDITAN|archivocoefrg)/i, example: 'ACREDITAN.TXT' },
  { state: 'E', pattern: /^PadronRetPer/i, example: 'PadronRetPerAAAAMM.txt' },
  { state: 'S', pattern: /^PARP[_-]?\d/i, example: 'PARP_AAAAMM.csv' },
  { state: 'X', pattern: /gimen de (percep|reten)/i, example: 'Régimen de percepción.txt' },
];

function baseName(fileName: string): string {
  return fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1);
}

/** The jurisdiction whose naming the file follows, with an example of that naming, or null. */
export function stateByFileName(fileName: string): { state: StateCode; example: string } | null {
  const name = baseName(fileName);
  const match = NAMING.find((naming) => naming.pattern.test(name));
  return match ? { state: match.state, example: match.example } : null;
}

/**
 * The regime of a one-regime file from its name: ARBA's `PadronRGSPer…`/`PadronRGSRet…`,
 * Córdoba's `Régimen de percepción/retención`. Null when the name does not say.
 */
export function regimeByFileName(fileName: string): RegimeCode | null {
  const name = baseName(fileName);
  const arba = /^PadronRGS(Per|Ret)/i.exec(name);
  if (arba) return arba[1]?.toLowerCase() === 'per' ? 'P' : 'R';
  if (/percep/i.test(name)) return 'P';
  if (/reten/i.test(name)) return 'R';
  return null;
}

/** Salta's `… al DD-MM-YYYY.txt` as `YYYY-MM-DD`, or null. */
export function saltaDateByFileName(fileName: string): string | null {
  const match = /\bal\s+(\d{1,2}-\d{1,2}-\d{4})/i.exec(baseName(fileName));
  return match?.[1] ? readDashedDdmmyyyy(match[1]) : null;
}
