import type pg from 'pg';
import { openSession, type SessionOptions } from './openSession.ts';

export interface QueryOptions {
  /** Runs the statements in a read-only transaction, rolled back after: a check that cannot change what it checks. */
  readOnly?: boolean;
}

/** Runs `work` in a session of its own on the database at `url` (as the role the URL names), then ends the session. */
export async function inSession<T>(url: string, session: SessionOptions, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await openSession(url, session);
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The rows of `sql` (of its last statement when it holds several and no `params`). Values come back
 * as `pg` gives them: int8 and numeric as strings, timestamps as Dates.
 */
export async function queryRows<Row extends object>(client: pg.Client, sql: string, params: readonly unknown[] | undefined, { readOnly = false }: QueryOptions = {}): Promise<Row[]> {
  const run = async () => {
    // A multi-statement text is sent as one simple query, which takes no parameters.
    const result: pg.QueryResult | pg.QueryResult[] = params && params.length > 0 ? await client.query(sql, [...params]) : await client.query(sql);
    const last = Array.isArray(result) ? result.at(-1) : result;
    return (last?.rows ?? []) as Row[];
  };
  if (!readOnly) return run();
  await client.query('begin transaction read only');
  try {
    return await run();
  } finally {
    await client.query('rollback').catch(() => undefined);
  }
}

/** The database's size on disk, in bytes. */
export async function databaseSize(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ bytes: string }>('select pg_database_size(current_database())::text as bytes');
  return Number(rows[0]?.bytes ?? 0);
}
