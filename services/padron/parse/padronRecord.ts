/**
 * What every padrón parser produces, whatever the jurisdiction's layout: one record per CUIT,
 * regime and validity period. This is the contract between the parsers (`services/padron/parse`)
 * and the loader that COPYs records into the staging table.
 */

export type StateCode = 'C' | 'B' | 'T' | 'E' | 'S' | 'A' | 'X';
export type RegimeCode = 'P' | 'R';

export const STATE_NAMES: Readonly<Record<StateCode, string>> = {
  C: 'CABA',
  B: 'Buenos Aires',
  T: 'Tucuman',
  E: 'Entre Rios',
  S: 'Santa Fe',
  A: 'Salta',
  X: 'Cordoba',
};

export const REGIME_NAMES: Readonly<Record<RegimeCode, string>> = { P: 'Percepcion', R: 'Retencion' };

export interface PadronRecord {
  /** 11-digit CUIT as a number (fits a double exactly). */
  cuit: number;
  regime: RegimeCode;
  /**
   * The rate as an exact decimal string with a dot (`"2.5"`, `"0"`, `"6.00"` normalized to
   * `"6.00"` is fine): never a float, so no rounding on the way to PostgreSQL `numeric`.
   */
  aliquot: string;
  /** Validity, `YYYY-MM-DD`, or null when the file does not say. */
  dateFrom: string | null;
  dateTo: string | null;
  /** Publication date of the line, `YYYY-MM-DD`, or null. */
  published: string | null;
  /** Marca alta `B`: the subject was removed, so it has no current rate. Kept to report it. */
  removed: boolean;
  /** `tipo`/categoría (C = Convenio Multilateral, D/L = local, N…) or Tucumán's `CM`; metadata. */
  kind: string | null;
  /** `grupo` of the rate, metadata. */
  group: string | null;
  /** Razón social when the file has it. */
  name: string | null;
}

/** Why a line was not loaded; counted per reason with the first line numbers in the load report. */
export interface RejectedLine {
  line: number;
  reason: string;
}

/**
 * One layout family. `parseLine` is pure and synchronous (the hot loop of an import): it returns
 * the records of one line (two for layouts with perception and withholding on one line), a
 * rejection, or null for a line that is rightly skipped (blank, header).
 */
export interface LineParser {
  readonly layout: string;
  parseLine(line: string, lineNumber: number): PadronRecord[] | RejectedLine | null;
}
