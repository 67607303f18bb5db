import type { ReadModel } from '../readModel.ts';

/** A row of `read_model.padron_loads`, which the projector keeps from PadronLoaded events. */
export interface RecordedLoad {
  state: string;
  load_id: number;
  file_name: string;
  layout: string;
  regimes: string;
  /** The `date` columns as text (`2026-06-01`): pg would read them as Dates at local midnight. */
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
export async function listRecordedLoads(db: ReadModel, head: number, state?: string): Promise<RecordedLoads> {
  try {
    let query = db
      .selectFrom('padron_loads')
      .select((eb) => [
        'state',
        'load_id',
        'file_name',
        'layout',
        'regimes',
        eb.cast<string | null>('valid_from', 'text').as('valid_from'),
        eb.cast<string | null>('valid_to', 'text').as('valid_to'),
        'rows_loaded',
        'rows_removed',
        'rows_rejected',
        'duration_ms',
        'published_at',
      ])
      .orderBy('published_at', 'desc')
      .orderBy('load_id', 'desc');
    if (state !== undefined) query = query.where('state', '=', state);
    const loads = await query.execute();
    const checkpoint = await db.selectFrom('checkpoints').select('position').where('name', '=', 'padron_loads').executeTakeFirst();
    return { loads, lag: checkpoint === undefined ? null : Math.max(0, head - checkpoint.position) };
  } catch (error) {
    if ((error as { code?: string }).code === '42P01' || (error as { code?: string }).code === '3F000') return { loads: [], lag: null };
    throw error;
  }
}
