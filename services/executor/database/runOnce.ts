import type pg from 'pg';

/** Where `runOnce` keeps the keys of what it ran, inside the database it changed. */
export const MARKS_TABLE = 'forja_migration_marks';

/**
 * Runs `sql` and inserts the marker row `key` in one transaction, unless the marker is already
 * there: a change recorded in the database it made, so a step whose executor died between COMMIT
 * and recording its completion does not apply it twice. The marker goes in first, so a second
 * session running the same key waits on it and then finds it. A failing `sql` leaves neither the
 * marker nor any of its changes. `sql` must not end the transaction itself (COMMIT, ROLLBACK):
 * that is detected, and fails the call, but what it committed stays.
 */
export async function runOnceIn(client: pg.Client, key: string, sql: string): Promise<{ ran: boolean }> {
  await client.query('begin');
  try {
    await client.query(`create table if not exists ${MARKS_TABLE} (key text primary key, done_at timestamptz not null)`);
    const { rowCount } = await client.query(`insert into ${MARKS_TABLE} (key, done_at) values ($1, now()) on conflict (key) do nothing`, [key]);
    if (!rowCount) {
      await client.query('rollback');
      return { ran: false };
    }
    const transaction = async () => (await client.query<{ xid: string | null }>('select txid_current_if_assigned()::text as xid')).rows[0]?.xid ?? null;
    const before = await transaction();
    await client.query(sql);
    if ((await transaction()) !== before) throw new Error(`the SQL of ${key} ended the transaction itself (COMMIT or ROLLBACK): it cannot run exactly once; what it committed stays`);
    await client.query('commit');
    return { ran: true };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}
