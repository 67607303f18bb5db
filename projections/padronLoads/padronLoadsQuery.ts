import type pg from 'pg';

/** A pool or client: the CLI runs this on its own connection pool. */
type Queryable = Pick<pg.ClientBase, 'query'>;

/** A row of `read_model.padron_loads`, which the projector keeps from PadronLoaded events. */
export interface RecordedLoad {
  state: string;
  load_id: number;
  file_name: string;
  layout: string;
  regimes: string;
  valid_from: string | null;
  valid_to: string | null;
  rows_loaded: number;
  rows_removed: number;
  rows_rejected: number;
  duration_ms: number;
  published_at: Date;
}

export interface RecordedLoads {
  loads: RecordedLoad[];
  /** Events of the global feed the padron_loads projection has not applied yet; null when it never ran. */
  lag: number | null;
}

/**
 * The recorded loads, newest first, and how far the read model is behind `head`. An undefined
 * table means the projector never migrated the read model: nothing recorded yet as far as it knows.
 */
export async function listRecordedLoads(db: Queryable, head: number, state?: string): Promise<RecordedLoads> {
  try {
    const { rows } = await db.query<RecordedLoad>(
      `select state, load_id, file_name, layout, regimes, valid_from::text, valid_to::text, rows_loaded, rows_removed, rows_rejected, duration_ms, published_at
       from read_model.padron_loads where $1::text is null or state = $1 order by published_at desc, load_id desc`,
      [state ?? null],
    );
    const checkpoint = await db.query<{ position: number }>(`select position from read_model.checkpoints where name = 'padron_loads'`);
    const position = checkpoint.rows[0]?.position;
    return { loads: rows, lag: position === undefined ? null : Math.max(0, head - position) };
  } catch (error) {
    if ((error as { code?: string }).code === '42P01' || (error as { code?: string }).code === '3F000') return { loads: [], lag: null };
    throw error;
  }
}
