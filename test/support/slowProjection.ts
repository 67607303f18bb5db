import { sql } from 'kysely';
import type { ReadModel } from '#projections/readModel.ts';
import type { Projection } from '#projections/runner/projection.ts';

/**
 * A test projection that records every event it applies as a row (no unique key, so a double
 * apply would show as two rows). When `stallAt` is set, the batch holding that position reports
 * `mid-batch` on IPC after writing its rows and then hangs, so a test can kill it mid-transaction.
 */
export function recordingProjection(name: string, table: string, stallAt?: number): Projection {
  return {
    name,
    eventTypes: 'all',
    tables: [table],
    async apply(trx, events) {
      await trx
        .insertInto(table)
        .values(events.map((event) => ({ global_position: event.globalPosition, stream_id: event.stream })))
        .execute();
      if (stallAt !== undefined && events.some((event) => event.globalPosition >= stallAt)) {
        process.send?.('mid-batch');
        await new Promise((resolve) => setTimeout(resolve, 60_000));
      }
    },
  };
}

export async function createRecordingTable(db: ReadModel, table: string): Promise<void> {
  await sql`create table if not exists read_model.${sql.raw(table)} (global_position bigint not null, stream_id text not null)`.execute(db);
}
