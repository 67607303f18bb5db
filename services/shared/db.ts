import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';

/**
 * int8 (bigint) columns come back as JavaScript numbers. Everything we store as int8 — global
 * positions, versions, counters, CUITs — stays far below 2^53, and numbers keep arithmetic and
 * JSON plain. This is set once, here, for every pool in the process.
 */
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolOptions {
  max?: number;
  applicationName?: string;
}

export function createPool(connectionString: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'forja',
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

export function createKysely<Database>(pool: pg.Pool): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** A client outside any pool, for LISTEN and session-level advisory locks. */
export function createClient(connectionString: string, applicationName = 'forja'): pg.Client {
  const client = new pg.Client({ connectionString, application_name: applicationName });
  client.on('error', () => undefined);
  return client;
}
