import type { LineParser, RegimeCode, StateCode } from './padronRecord.ts';
import { STATE_NAMES } from './padronRecord.ts';
import { PadronFormatError } from './padronFormatError.ts';
import { type Layout, LAYOUT_DESCRIPTIONS, STATE_LAYOUTS, classifyLine } from './layouts.ts';
import { regimeByFileName, stateByFileName } from './fileNames.ts';
import { createAgipParser } from './agipParser.ts';
import { createLuaParser } from './luaParser.ts';
import { createRgsParser } from './rgsParser.ts';
import { createTucumanParser } from './tucumanParser.ts';
import { createSaltaPercentageParser, createSaltaRiskParser } from './saltaParser.ts';
import { validateSaltaRates } from './saltaRates.ts';
import { onlyRegime } from './onlyRegime.ts';
import { assertDateAgreesWithRows, saltaDateFrom } from './dateOption.ts';

/** Lines to pass as `firstLines`: enough to get past Tucumán's 7 header lines and a few quirks. */
export const DETECTION_LINES = 30;

/** What `openParser` needs to know about a file; only `state`, `fileName` and `firstLines` always. */
export interface OpenParserOptions {
  state: StateCode;
  /** The text file's name (inside the archive when it came in one): it may carry the regime or date. */
  fileName: string;
  /** Required for one-regime files (B, X) whose name does not tell; a filter for the others. */
  regime?: RegimeCode;
  /** The file's first decoded lines (`DETECTION_LINES` of them), headers included. */
  firstLines: readonly string[];
  /** Salta's rate table as parsed JSON; required for Salta's risk file, validated here. */
  saltaRates?: unknown;
  /**
   * `YYYY-MM-DD`, the first day the file's rates apply: needed for a Salta file whose name does
   * not carry it; refused when it contradicts the date in the name or in the rows.
   */
  date?: string;
}

/** A parser together with what it will produce, so a loader knows which rates it replaces. */
export interface OpenedParser extends LineParser {
  readonly state: StateCode;
  readonly regimes: readonly RegimeCode[];
  /**
   * The validity start the parser gives every row, for layouts whose rows carry no dates (Salta's:
   * from the name or `date`; null when neither says); undefined where each row carries its own.
   */
  readonly assignedDateFrom?: string | null;
}

/**
 * Picks the parser for a file from its content and name, or throws a PadronFormatError saying
 * why not: content of another jurisdiction's layout, a name that is another jurisdiction's, a
 * regime that cannot be told or contradicts the rows, a missing Salta rate table or date.
 */
export function openParser(options: OpenParserOptions): OpenedParser {
  const { state, fileName } = options;
  const layout = detectLayout(options);
  const byName = stateByFileName(fileName);
  if (byName !== null && byName.state !== state) {
    throw new PadronFormatError(`'${fileName}' is named like ${STATE_NAMES[byName.state]}'s padrón (${byName.example}), not ${STATE_NAMES[state]}'s; rename it if it really is ${STATE_NAMES[state]}'s`);
  }
  const opened = (parser: LineParser, regimes: readonly RegimeCode[], assignedDateFrom?: string | null): OpenedParser => {
    const wanted = options.regime === undefined ? regimes : regimes.filter((regime) => regime === options.regime);
    const filtered = wanted.length < regimes.length && options.regime !== undefined ? onlyRegime(parser, options.regime) : parser;
    if (assignedDateFrom === undefined) assertDateAgreesWithRows(fileName, parser, options.firstLines, options.date);
    return { state, regimes: wanted, layout: filtered.layout, parseLine: filtered.parseLine, ...(assignedDateFrom === undefined ? {} : { assignedDateFrom }) };
  };
  switch (layout) {
    case 'rgs':
    case 'lua': {
      const regime = oneRegime(options, layout);
      return opened(layout === 'rgs' ? createRgsParser({ regime }) : createLuaParser({ regime }), [regime]);
    }
    case 'agip':
      return opened(createAgipParser({ headerLine: state === 'E' }), ['P', 'R']);
    case 'tucuman':
      return opened(createTucumanParser(), ['P', 'R']);
    case 'salta-risk': {
      const { parser, regimes, dateFrom } = saltaRiskParser(options);
      return opened(parser, regimes, dateFrom);
    }
    case 'salta-percentage': {
      if (options.regime === 'R') throw new PadronFormatError(`'${fileName}' is Salta's older layout, which has perception rates only; it cannot be imported as regime R`);
      const dateFrom = saltaDateFrom(fileName, options.date);
      return opened(createSaltaPercentageParser({ dateFrom }), ['P'], dateFrom);
    }
  }
}

function detectLayout({ state, fileName, firstLines }: OpenParserOptions): Layout {
  const votes = new Map<Layout, number>();
  for (const line of firstLines) {
    const layout = classifyLine(line);
    if (layout !== null) votes.set(layout, (votes.get(layout) ?? 0) + 1);
  }
  const expected = STATE_LAYOUTS[state];
  const found = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (found === undefined) {
    const sample = firstLines.find((line) => line.trim() !== '')?.slice(0, 80) ?? '';
    const where = firstLines.length === 0 ? ' (it is empty)' : firstLines.length === 1 ? ' in its only line' : ` in any of its first ${firstLines.length} lines`;
    throw new PadronFormatError(`'${fileName}' matches no known padrón layout${where}, and ${STATE_NAMES[state]} expects ${expected.name}; first line: ${JSON.stringify(sample)}`);
  }
  if (!expected.layouts.includes(found)) {
    throw new PadronFormatError(`'${fileName}' looks like ${LAYOUT_DESCRIPTIONS[found]}, not ${expected.name}`);
  }
  return found;
}

/** The regime of a B or X file: from its name or the option, and its rows must agree. */
function oneRegime({ fileName, regime, firstLines }: OpenParserOptions, layout: Layout): RegimeCode {
  const byName = regimeByFileName(fileName);
  if (byName !== null && regime !== undefined && byName !== regime) {
    throw new PadronFormatError(`'${fileName}' is a ${byName} file by its name, but regime ${regime} was asked`);
  }
  const chosen = byName ?? regime;
  if (chosen === undefined) {
    throw new PadronFormatError(`cannot tell the regime of '${fileName}' from its name (expected PadronRGSPer…/PadronRGSRet… or Régimen de percepción/retención); pass --regime P or R`);
  }
  const rows = firstLines.filter((line) => classifyLine(line) === layout).map((line) => line.trim().charAt(0));
  const other = chosen === 'P' ? 'R' : 'P';
  if (rows.length > 0 && rows.every((letter) => letter === other)) {
    throw new PadronFormatError(`'${fileName}' holds ${other} rows but is being imported as regime ${chosen}`);
  }
  return chosen;
}

/** The risk file's parser, the regimes the table has rates for (a table may give only P), and its date. */
function saltaRiskParser({ fileName, saltaRates, date }: OpenParserOptions): { parser: LineParser; regimes: RegimeCode[]; dateFrom: string } {
  if (saltaRates === undefined) {
    throw new PadronFormatError(`'${fileName}' is Salta's risk file, which has no rates: supply Salta's rate table (CM/JU × RA/RB/SR) to import it`);
  }
  const rates = validateSaltaRates(saltaRates);
  const dateFrom = saltaDateFrom(fileName, date);
  if (dateFrom === null) {
    throw new PadronFormatError(`cannot read the date of '${fileName}': Salta's risk file carries none but in a name ending '… al DD-MM-YYYY.txt'; pass --date YYYY-MM-DD, the first day its rates apply`);
  }
  const cells = [...Object.values(rates.CM), ...Object.values(rates.JU)];
  const regimes = (['P', 'R'] as const).filter((regime) => cells.some((cell) => cell[regime] !== undefined));
  return { parser: createSaltaRiskParser({ rates, dateFrom }), regimes, dateFrom };
}
