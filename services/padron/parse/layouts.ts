import type { StateCode } from './padronRecord.ts';
import { countFields } from './lineChecks.ts';

/** The layout families; each has one parser factory. */
export type Layout = 'rgs' | 'agip' | 'lua' | 'tucuman' | 'salta-risk' | 'salta-percentage';

/** How an operator recognises a layout, used in refusals ("this file looks like …"). */
export const LAYOUT_DESCRIPTIONS: Readonly<Record<Layout, string>> = {
  rgs: "Buenos Aires' RGS layout (10 fields, `P` or `R` first)",
  agip: 'the AGIP layout of CABA, Santa Fe and Entre Ríos (12 fields, dates first)',
  lua: "Córdoba's LUA layout (9 fields, `X` in field 7)",
  tucuman: "Tucumán's fixed-width layout (CUIT, flags and AAAAMMDD dates in columns)",
  'salta-risk': "Salta's risk layout (4 tab-separated columns)",
  'salta-percentage': "Salta's older layout (3 tab-separated columns with a percentage)",
};

/** What each jurisdiction publishes, and how to name it in a refusal. */
export const STATE_LAYOUTS: Readonly<Record<StateCode, { layouts: readonly Layout[]; name: string }>> = {
  B: { layouts: ['rgs'], name: "Buenos Aires' RGS layout" },
  C: { layouts: ['agip'], name: "CABA's AGIP layout" },
  S: { layouts: ['agip'], name: "Santa Fe's PARP layout (AGIP design)" },
  E: { layouts: ['agip'], name: "Entre Ríos' layout (AGIP design after a header line)" },
  X: { layouts: ['lua'], name: "Córdoba's LUA layout" },
  T: { layouts: ['tucuman'], name: "Tucumán's fixed-width layout" },
  A: { layouts: ['salta-risk', 'salta-percentage'], name: "Salta's tab-separated layouts" },
};

const ELEVEN_DIGITS = /^\d{11}$/;
const DATE_FIELD = /^\d{7,8}$/;

/**
 * The layout one line belongs to, or null for headers, blanks and anything unrecognised. Looks
 * only at structure (separator, field count, fixed markers), the same things the parsers check and
 * counted the way they count (`countFields`: an empty last field is a field, one extra trailing
 * separator is forgiven), so a file is refused at the start instead of rejected line by line, and
 * never refused for a line its parser would take. Only used on a sample of lines.
 */
export function classifyLine(line: string): Layout | null {
  if (line.includes('\t')) {
    const columns = line.split('\t').map((column) => column.trim());
    if (!ELEVEN_DIGITS.test((columns[0] ?? '').replaceAll('-', ''))) return null;
    if (countFields(columns, 4) === 4 && /^(CM|JU)$/.test(columns[2] ?? '')) return 'salta-risk';
    return countFields(columns, 3) === 3 ? 'salta-percentage' : null;
  }
  if (line.includes(';')) {
    const fields = line.split(';').map((field) => field.trim());
    const regimeFirst = fields[0] === 'P' || fields[0] === 'R';
    if (regimeFirst && countFields(fields, 9) === 9 && fields[6] === 'X') return 'lua';
    if (regimeFirst && countFields(fields, 10, true) === 10 && ELEVEN_DIGITS.test(fields[4] ?? '')) return 'rgs';
    if (countFields(fields, 12) === 12 && DATE_FIELD.test(fields[0] ?? '') && ELEVEN_DIGITS.test(fields[3] ?? '')) return 'agip';
    return null;
  }
  return /^\d{2}-?\d{8}-?\d\s/.test(line) && /^\d{8}$/.test(line.slice(20, 28)) ? 'tucuman' : null;
}
