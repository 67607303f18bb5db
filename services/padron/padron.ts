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
  durationMs: number;
}

export type PadronLoaded = { type: 'PadronLoaded'; data: PadronLoadedData };
export type PadronEvent = PadronLoaded;

/** What a jurisdiction's stream says: the files already loaded, by sha256. */
export interface PadronState {
  loadedFiles: Readonly<Record<string, { loadId: number; fileName: string; publishedAt: string }>>;
}

export const initialPadronState = (): PadronState => ({ loadedFiles: {} });

export function evolvePadron(state: PadronState, event: PadronEvent): PadronState {
  switch (event.type) {
    case 'PadronLoaded': {
      const { sha256, loadId, fileName, publishedAt } = event.data;
      return { loadedFiles: { ...state.loadedFiles, [sha256]: { loadId, fileName, publishedAt } } };
    }
    default: {
      const unknown: never = event.type;
      return unknown;
    }
  }
}

/** The stream of a jurisdiction's loads. */
export const padronStream = (state: StateCode): string => `padron-${state}`;
