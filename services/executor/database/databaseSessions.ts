import pg from 'pg';
import { openSession, type SessionOptions } from './openSession.ts';

export interface QueryOptions {
  /**
   * Runs `sql` as one statement, in a read-only transaction rolled back after: a check that cannot
   * change what it checks (see readOnlyRows).
   */
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
 * The rows of `sql` (of its last statement when it holds several, no `params` and not `readOnly`).
 * Values come back as `pg` gives them: int8 and numeric as strings, timestamps as Dates.
 */
export async function queryRows<Row extends object>(client: pg.Client, sql: string, params: readonly unknown[] | undefined, { readOnly = false }: QueryOptions = {}): Promise<Row[]> {
  if (readOnly) return readOnlyRows<Row>(client, sql, params ?? []);
  // A multi-statement text is sent as one simple query, which takes no parameters.
  const result: pg.QueryResult | pg.QueryResult[] = params && params.length > 0 ? await client.query(sql, [...params]) : await client.query(sql);
  const last = Array.isArray(result) ? result.at(-1) : result;
  return (last?.rows ?? []) as Row[];
}

/** Thrown when a read-only statement ended its read-only transaction (a lone COMMIT or ROLLBACK): harmless alone, but never what a check means. */
export class ReadOnlyBreachError extends Error {
  override readonly name = 'ReadOnlyBreachError';
}

/**
 * Runs `sql` in `BEGIN READ ONLY` as one statement over the extended protocol, whose Parse message
 * Postgres refuses with several commands: `commit; create table x()` sent as a simple query
 * committed the read-only transaction and wrote. A first snapshot is taken before it, after which
 * Postgres refuses `SET TRANSACTION READ WRITE` (and set_config of transaction_read_only); a
 * statement that still ended the transaction (a lone COMMIT) is caught by the mode read after it.
 * What a DO block writes, SELECT INTO, nextval and the like fail in the read-only transaction.
 */
async function readOnlyRows<Row extends object>(client: pg.Client, sql: string, params: readonly unknown[]): Promise<Row[]> {
  await client.query('begin transaction read only');
  try {
    await client.query('select');
    // queryMode is pg's own (lib/query.js, requiresPreparation), missing from @types/pg; empty values alone keep the simple protocol.
    const result = await client.query({ text: sql, values: [...params], queryMode: 'extended' } as pg.QueryConfig);
    const { rows } = await client.query<{ mode: string }>(`select current_setting('transaction_read_only') as mode`);
    if (rows[0]?.mode !== 'on') throw new ReadOnlyBreachError('the statement ended its read-only transaction (a COMMIT or ROLLBACK): a read-only query is one statement that only reads');
    return result.rows as Row[];
  } finally {
    await client.query('rollback').catch(() => undefined);
  }
}

/**
 * SQLSTATE classes that are the statement's fault, not the server's: syntax and access (42, which
 * holds "cannot insert multiple commands into a prepared statement"), transaction state (25, a write
 * in a read-only transaction), transaction termination (2D), data (22), unsupported features (0A).
 * Running the same statement again on the same database fails the same way.
 */
const STATEMENT_FAULTS = new Set(['42', '25', '2D', '22', '0A']);

/** Whether `error` says the statement itself was refused, rather than the connection or the server failing. */
export function isStatementRefused(error: unknown): error is Error {
  if (error instanceof ReadOnlyBreachError) return true;
  return error instanceof pg.DatabaseError && typeof error.code === 'string' && STATEMENT_FAULTS.has(error.code.slice(0, 2));
}

/** The database's size on disk, in bytes. */
export async function databaseSize(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ bytes: string }>('select pg_database_size(current_database())::text as bytes');
  return Number(rows[0]?.bytes ?? 0);
}
