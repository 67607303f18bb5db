import type pg from 'pg';
import type { StateCode } from '../parse/padronRecord.ts';
import { monthsBefore } from '../time.ts';
import { ratesTable } from './loads.ts';

/** How long a jurisdiction's loads stay queryable with `date=` (issue 4). */
export const RETENTION_MONTHS = 13;

interface LoadRow {
  load_id: number;
  regimes: string;
  valid_from: string | null;
  until: string;
}

/**
 * Drops the loads of `state` whose validity ended more than 13 months before `today`, except
 * the newest load of each regime, which keeps serving however old it is. Each drop is its own
 * short transaction with a lock timeout: dropping a partition waits for queries on `padron.rates`,
 * and a busy moment only postpones the drop to the next import.
 */
export async function expireOldLoads(client: pg.ClientBase, state: StateCode, today: string): Promise<number[]> {
  const { rows } = await client.query<LoadRow>(
    `select load_id, regimes, valid_from::text, coalesce(valid_to, published_at::date)::text as until
     from padron.loads where state = $1 and status = 'published' order by valid_from nulls first, load_id`,
    [state],
  );
  const newestPerRegime = new Map<string, number>();
  for (const row of rows) for (const regime of row.regimes) newestPerRegime.set(regime, row.load_id);
  const keep = new Set(newestPerRegime.values());
  const cutoff = monthsBefore(today, RETENTION_MONTHS);
  const expired: number[] = [];
  for (const row of rows) {
    if (keep.has(row.load_id) || row.until >= cutoff) continue;
    try {
      await client.query('begin');
      await client.query(`set local lock_timeout = '3s'`);
      await client.query(`update padron.loads set status = 'expired' where load_id = $1`, [row.load_id]);
      await client.query(`drop table if exists ${ratesTable(row.load_id)}`);
      await client.query('commit');
      expired.push(row.load_id);
    } catch {
      await client.query('rollback').catch(() => undefined);
    }
  }
  return expired;
}
