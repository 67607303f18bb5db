import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { COPY_COLUMNS, COPY_FORMAT, CopyRowWriter } from '../import/copyRows.ts';
import type { RegimeCode } from '../parse/padronRecord.ts';
import { ratesTable } from './loads.ts';

/** What the feed wrote and the publish decided. */
export interface PublishedStage {
  rowsLoaded: number;
  regimes: RegimeCode[];
  validFrom: string | null;
  validTo: string | null;
  /** Line numbers of rows dropped because an earlier line had the same CUIT and regime. */
  duplicateLines: number[];
  publishedAt: Date;
}

/**
 * Loads one file into its own table and publishes it, in ONE transaction on `client`:
 * create the table without indexes, COPY every row `feed` writes (FREEZE: the table is new in this
 * transaction, so rows are written frozen and later reads never rewrite pages to set hint bits),
 * build the key, analyze, attach
 * it as a partition of `padron.rates` and mark the load published. Until the commit no other
 * session sees any of it; if anything fails or the process dies, PostgreSQL rolls all of it back
 * and the previous load keeps serving. The key is built after the COPY because COPY into an
 * indexed table is several times slower (PERFORMANCE.md).
 *
 * `report` is stored on the load row so its event can be recorded again if the process dies
 * between the commit and the append.
 */
export async function stageAndPublish(
  client: pg.ClientBase,
  loadId: number,
  layout: string,
  feed: (writer: CopyRowWriter) => Promise<void>,
  report: (stage: Omit<PublishedStage, 'publishedAt'>, publishedAt: Date) => unknown,
): Promise<PublishedStage> {
  const table = ratesTable(loadId);
  await client.query('begin');
  try {
    // Index builds sort in memory up to this; ANALYZE of a padrón needs a small sample (its values
    // are few and uniform), which keeps it at tens of milliseconds instead of a second.
    await client.query(`set local maintenance_work_mem = '256MB'`);
    await client.query('set local default_statistics_target = 10');
    await client.query(`create table ${table} (
      load_id integer not null default ${loadId} check (load_id = ${loadId}),
      cuit bigint not null, regime char(1) not null, aliquot numeric not null,
      date_from date, date_to date, kind text, grp text, line integer not null)`);
    const copy = client.query(copyStreams.from(`copy ${table} (${COPY_COLUMNS}) from stdin with (${COPY_FORMAT}, freeze)`));
    const writer = new CopyRowWriter(copy);
    try {
      await feed(writer);
      await writer.end();
    } catch (error) {
      // The connection is still in COPY mode: abort the COPY (CopyFail) so the rollback can run.
      if (!copy.destroyed) await new Promise<void>((resolve) => copy.once('close', () => resolve()).destroy(error as Error));
      throw error;
    }
    const duplicateLines = await buildKey(client, table);
    await client.query(`analyze ${table}`);
    // The check constraint proves the partition bound, so ATTACH does not scan the table.
    await client.query(`alter table padron.rates attach partition ${table} for values in (${loadId})`);
    const stage = { rowsLoaded: writer.rows - duplicateLines.length, regimes: writer.regimes, validFrom: writer.validFrom, validTo: writer.validTo, duplicateLines };
    const { rows } = await client.query<{ published_at: Date }>(
      `update padron.loads set status = 'published', published_at = clock_timestamp(), finished_at = clock_timestamp(),
         layout = $2, regimes = $3, valid_from = $4, valid_to = $5, rows_loaded = $6
       where load_id = $1 and status = 'loading' returning published_at`,
      [loadId, layout, stage.regimes.join(''), stage.validFrom, stage.validTo, stage.rowsLoaded],
    );
    const publishedAt = rows[0]?.published_at;
    if (!publishedAt) throw new Error(`load ${loadId} is no longer loading (marked failed by another import?)`);
    await client.query('update padron.loads set report = $2 where load_id = $1', [loadId, JSON.stringify(report(stage, publishedAt))]);
    await client.query('commit');
    return { ...stage, publishedAt };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}

/**
 * The unique key (cuit, regime). A file that repeats a CUIT for a regime keeps its first line:
 * the later ones are deleted and returned, to be reported as rejects.
 */
async function buildKey(client: pg.ClientBase, table: string): Promise<number[]> {
  const create = `create unique index on ${table} (cuit, regime)`;
  await client.query('savepoint build_key');
  try {
    await client.query(create);
    return [];
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    await client.query('rollback to savepoint build_key');
  }
  const { rows } = await client.query<{ line: number }>(
    `delete from ${table} later using ${table} earlier
     where later.cuit = earlier.cuit and later.regime = earlier.regime and later.line > earlier.line
     returning later.line`,
  );
  await client.query(create);
  return [...new Set(rows.map((row) => row.line))];
}
