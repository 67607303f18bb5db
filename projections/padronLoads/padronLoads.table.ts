import type { ColumnType, JSONColumnType } from 'kysely';

/** A `date` column: pg reads it as a Date at local midnight, so queries select it `::text`. */
type DateColumn = ColumnType<Date | null, string | null, string | null>;

/** One row per PadronLoaded event: the loads `npm run padron -- loads` lists. */
export interface PadronLoadsTable {
  event_id: string;
  state: string;
  load_id: number;
  file_name: string;
  sha256: string;
  layout: string;
  regimes: string;
  valid_from: DateColumn;
  valid_to: DateColumn;
  rows_loaded: number;
  rows_removed: number;
  rows_rejected: number;
  /** jsonb: written as a JSON string, read back as the array. */
  rejects: JSONColumnType<unknown[]>;
  duration_ms: number;
  published_at: Date;
  global_position: number;
}

export interface PadronLoadsDb {
  padron_loads: PadronLoadsTable;
}
