import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';

/**
 * The data of a PadronLoaded event as `schemas/events/PadronLoaded.v1.json` defines it. Declared
 * here rather than imported: projections never import a process (services/padron).
 */
interface PadronLoadedData {
  loadId: number;
  state: string;
  regimes: string[];
  fileName: string;
  sha256: string;
  layout: string;
  validFrom: string | null;
  validTo: string | null;
  publishedAt: string;
  rowsLoaded: number;
  rowsRemoved: number;
  rowsRejected: number;
  rejects: unknown[];
  durationMs: number;
}

/** Every padrón load ever recorded, for `npm run padron -- loads`. Replays insert nothing twice (event id key). */
export const padronLoadsProjection: Projection<ReadModelDatabase> = {
  name: 'padron_loads',
  eventTypes: ['PadronLoaded'],
  tables: ['padron_loads'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    const rows = events.map((event) => {
      const data = event.data as PadronLoadedData;
      return {
        event_id: event.id,
        state: data.state,
        load_id: data.loadId,
        file_name: data.fileName,
        sha256: data.sha256,
        layout: data.layout,
        regimes: data.regimes.join(''),
        valid_from: data.validFrom,
        valid_to: data.validTo,
        rows_loaded: data.rowsLoaded,
        rows_removed: data.rowsRemoved,
        rows_rejected: data.rowsRejected,
        rejects: JSON.stringify(data.rejects),
        duration_ms: data.durationMs,
        published_at: new Date(data.publishedAt),
        global_position: event.globalPosition,
      };
    });
    if (rows.length === 0) return;
    await trx.insertInto('padron_loads').values(rows).onConflict((oc) => oc.column('event_id').doNothing()).execute();
  },
};
