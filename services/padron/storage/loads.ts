import type pg from 'pg';
import type { RegimeCode, StateCode } from '../parse/padronRecord.ts';

/** A pool or a client: the loads queries run on either. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

/** Advisory-lock class of a running import; the second key is the load id. Held for the importer's whole session. */
export const IMPORT_LOCK_CLASS = 0x50414452; // 'PADR'

/** A published load as the lookup service sees it. */
export interface PublishedLoad {
  loadId: number;
  state: StateCode;
  regimes: RegimeCode[];
  validFrom: string | null;
  validTo: string | null;
  publishedAt: Date;
  rows: number;
  /** Rows kept although their CUIT's check digit does not verify (from the load report). */
  rowsWarned: number;
}

/** A load of a file for the jurisdiction that is live: being imported now, or published (serving). */
export interface LiveLoad {
  loadId: number;
  status: 'loading' | 'published';
  fileName: string;
  /** The regime the import was asked for; null when it took every regime the file has. */
  askedRegime: RegimeCode | null;
  regimes: RegimeCode[];
  validFrom: string | null;
  startedAt: Date;
  publishedAt: Date | null;
  report: unknown;
}

/**
 * Records the start of an import and takes its advisory lock in one transaction, so no one sees
 * the `loading` row without its lock held. Returns null when the same file is being imported.
 */
export async function claimLoad(client: Queryable, claim: { state: StateCode; fileName: string; sha256: string; askedRegime: RegimeCode | null }): Promise<number | null> {
  await client.query('begin');
  try {
    const { rows } = await client.query<{ load_id: number }>(
      `insert into padron.loads (state, file_name, sha256, asked_regime) values ($1, $2, $3, $4)
       on conflict (state, sha256) where status = 'loading' do nothing returning load_id`,
      [claim.state, claim.fileName, claim.sha256, claim.askedRegime],
    );
    const loadId = rows[0]?.load_id;
    if (loadId !== undefined) await client.query('select pg_advisory_lock($1, $2)', [IMPORT_LOCK_CLASS, loadId]);
    await client.query('commit');
    return loadId ?? null;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}

/** The live loads of one file (same sha256) for the jurisdiction, oldest first. */
export async function findLiveLoads(db: Queryable, state: StateCode, sha256: string): Promise<LiveLoad[]> {
  const { rows } = await db.query<{
    load_id: number;
    status: 'loading' | 'published';
    file_name: string;
    asked_regime: RegimeCode | null;
    regimes: string;
    valid_from: string | null;
    started_at: Date;
    published_at: Date | null;
    report: unknown;
  }>(
    `select load_id, status, file_name, asked_regime, regimes, valid_from::text, started_at, published_at, report from padron.loads
     where state = $1 and sha256 = $2 and status in ('loading', 'published') order by load_id`,
    [state, sha256],
  );
  return rows.map((row) => ({
    loadId: row.load_id,
    status: row.status,
    fileName: row.file_name,
    askedRegime: row.asked_regime,
    regimes: [...row.regimes] as RegimeCode[],
    validFrom: row.valid_from,
    startedAt: row.started_at,
    publishedAt: row.published_at,
    report: row.report,
  }));
}

/**
 * Marks `loading` loads whose importer is gone (its session, and so its advisory lock, ended:
 * killed, crashed, lost its connection) as failed. Their rows vanished with their transaction.
 */
export async function failAbandonedLoads(client: Queryable): Promise<number[]> {
  const { rows } = await client.query<{ load_id: number }>(`select load_id from padron.loads where status = 'loading'`);
  const failed: number[] = [];
  for (const { load_id: loadId } of rows) {
    const { rows: locked } = await client.query<{ got: boolean }>('select pg_try_advisory_lock($1, $2) as got', [IMPORT_LOCK_CLASS, loadId]);
    if (!locked[0]?.got) continue;
    await markFailed(client, loadId, 'interrupted: the importing process stopped before publishing');
    await client.query('select pg_advisory_unlock($1, $2)', [IMPORT_LOCK_CLASS, loadId]);
    failed.push(loadId);
  }
  return failed;
}

export async function markFailed(db: Queryable, loadId: number, error: string): Promise<void> {
  await db.query(`update padron.loads set status = 'failed', error = $2, finished_at = now() where load_id = $1 and status = 'loading'`, [loadId, error.slice(0, 2000)]);
}

/** Every published load, oldest first: the catalog the lookup service resolves dates against. */
export async function listPublishedLoads(db: Queryable): Promise<PublishedLoad[]> {
  const { rows } = await db.query<{ load_id: number; state: StateCode; regimes: string; valid_from: string | null; valid_to: string | null; published_at: Date; rows_loaded: number; rows_warned: number }>({
    name: 'padron.published_loads',
    text: `select load_id, state, regimes, valid_from::text, valid_to::text, published_at, rows_loaded,
             coalesce((report->>'rowsWarned')::integer, 0) as rows_warned
           from padron.loads where status = 'published' order by load_id`,
  });
  return rows.map((row) => ({
    loadId: row.load_id,
    state: row.state,
    regimes: [...row.regimes] as RegimeCode[],
    validFrom: row.valid_from,
    validTo: row.valid_to,
    publishedAt: row.published_at,
    rows: row.rows_loaded,
    rowsWarned: row.rows_warned,
  }));
}

/** Name of a load's rates table: its staging table while it loads, its partition once published. */
export const ratesTable = (loadId: number): string => `padron.rates_${loadId}`;
