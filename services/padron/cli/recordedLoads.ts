import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { padronStream, type PadronLoaded } from '../padron.ts';
import { STATE_NAMES, type StateCode } from '../parse/padronRecord.ts';
import type { Queryable } from '../storage/loads.ts';

/** A recorded load as `npm run padron -- loads` lists it (snake_case, as its JSON always was). */
export interface RecordedLoad {
  state: StateCode;
  load_id: number;
  file_name: string;
  layout: string;
  regimes: string;
  valid_from: string | null;
  valid_to: string | null;
  rows_loaded: number;
  rows_removed: number;
  rows_rejected: number;
  /** Rows kept with a warning (a CUIT whose check digit does not verify). */
  rows_warned: number;
  duration_ms: number;
  published_at: string;
  /** `published` while it can serve, `expired` once retention dropped it; `unknown` without schema padron. */
  status: string;
}

/**
 * Every recorded load, newest first, read from the jurisdictions' `padron-<state>` streams: the
 * import appends there before it returns, so a listing right after an import shows it whether or
 * not a projector runs (a read model would lag until one did). Seven short streams, one event per
 * import. The status comes from schema `padron`, where retention marks what it dropped.
 */
export async function listRecordedLoads(store: EventStore, db: Queryable, state?: StateCode): Promise<RecordedLoad[]> {
  const states = state === undefined ? (Object.keys(STATE_NAMES) as StateCode[]) : [state];
  const events = (await Promise.all(states.map(async (code) => (await store.readStream<PadronLoaded>(padronStream(code))).events))).flat();
  const statuses = await loadStatuses(db, events.map((event) => event.data.loadId));
  return events
    .map(({ data }) => ({
      state: data.state,
      load_id: data.loadId,
      file_name: data.fileName,
      layout: data.layout,
      regimes: data.regimes.join(''),
      valid_from: data.validFrom,
      valid_to: data.validTo,
      rows_loaded: data.rowsLoaded,
      rows_removed: data.rowsRemoved,
      rows_rejected: data.rowsRejected,
      rows_warned: data.rowsWarned ?? 0,
      duration_ms: data.durationMs,
      published_at: data.publishedAt,
      status: statuses.get(data.loadId) ?? 'unknown',
    }))
    .sort((a, b) => (a.published_at === b.published_at ? b.load_id - a.load_id : a.published_at < b.published_at ? 1 : -1));
}

async function loadStatuses(db: Queryable, loadIds: number[]): Promise<Map<number, string>> {
  if (loadIds.length === 0) return new Map();
  try {
    const { rows } = await db.query<{ load_id: number; status: string }>('select load_id, status from padron.loads where load_id = any($1)', [loadIds]);
    return new Map(rows.map((row) => [row.load_id, row.status]));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '42P01' || code === '3F000') return new Map();
    throw error;
  }
}
