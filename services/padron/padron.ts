import type { RegimeCode, StateCode } from './parse/padronRecord.ts';

/**
 * The padrón context's events and state. One stream per jurisdiction, `padron-<state>`; each
 * published import is one `PadronLoaded`. The rates themselves are not events (millions of rows
 * per file): they live in schema `padron`, and the event is the audit record of what was loaded.
 */

/** Rejected lines of one reason: how many, and the first line numbers to look at. */
export interface RejectSummary {
  reason: string;
  count: number;
  firstLines: number[];
}

export interface PadronLoadedData {
  loadId: number;
  state: StateCode;
  regimes: RegimeCode[];
  fileName: string;
  /** The text files imported: the file itself, or the entries of its archive. */
  entries: string[];
  sha256: string;
  layout: string;
  /** Validity of the load: earliest `date_from` and latest `date_to` of its rows, `YYYY-MM-DD`. */
  validFrom: string | null;
  validTo: string | null;
  /** When the load became the one lookups see (ISO 8601). */
  publishedAt: string;
  rowsLoaded: number;
  /** Rows with marca alta `B`: read, counted, and not published as current rates. */
  rowsRemoved: number;
  rowsRejected: number;
  rejects: RejectSummary[];
  /**
   * Lines kept although worth a look (a CUIT whose check digit does not verify), by reason. Absent
   * from the events of loads recorded before warnings existed.
   */
  rowsWarned?: number;
  warnings?: RejectSummary[];
  durationMs: number;
}

export type PadronLoaded = { type: 'PadronLoaded'; data: PadronLoadedData };
export type PadronEvent = PadronLoaded;

/**
 * What a jurisdiction's stream says: the loads recorded, by load id. Not by file: the same file is
 * loaded again when retention dropped its load or an earlier import took only one of its regimes.
 */
export interface PadronState {
  recordedLoads: Readonly<Record<number, { fileName: string; sha256: string; publishedAt: string }>>;
}

export const initialPadronState = (): PadronState => ({ recordedLoads: {} });

export function evolvePadron(state: PadronState, event: PadronEvent): PadronState {
  switch (event.type) {
    case 'PadronLoaded': {
      const { sha256, loadId, fileName, publishedAt } = event.data;
      return { recordedLoads: { ...state.recordedLoads, [loadId]: { fileName, sha256, publishedAt } } };
    }
    default: {
      const unknown: never = event.type;
      return unknown;
    }
  }
}

/** The stream of a jurisdiction's loads. */
export const padronStream = (state: StateCode): string => `padron-${state}`;
