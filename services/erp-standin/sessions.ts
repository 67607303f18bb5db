import pg from 'pg';

/** The stand-in's open database sessions by backend pid, so a SIGTERM can end the SQL they run. */
const open = new Map<pg.Client, number>();

/**
 * Connects and records the session's backend. The server is also asked to check the connection
 * every second while a statement runs (PostgreSQL 14+), so even a SIGKILLed stand-in leaves no
 * `pg_sleep` or long UPDATE running for more than a second.
 */
export async function connectSession(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client(config);
  // A terminated backend also fails the running query, which reports it; unhandled, this event would crash the process first.
  client.on('error', () => undefined);
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  await client.query(`select set_config('client_connection_check_interval', '1000', false) where current_setting('server_version_num')::int >= 140000`);
  open.set(client, rows[0]!.pid);
  client.once('end', () => open.delete(client));
  return client;
}

/** Ends every recorded session's backend (its transaction rolls back) from a new connection to `postgres`. */
export async function endSessions(config: pg.ClientConfig): Promise<number[]> {
  const pids = [...open.values()];
  if (pids.length === 0) return [];
  const admin = new pg.Client({ ...config, database: 'postgres' });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [pids]);
    return pids;
  } finally {
    await admin.end();
  }
}

/** Creates `database` on the server unless it exists, as the real ERP does for `-d`. */
export async function ensureDatabase(connection: pg.ClientConfig, database: string, log: (level: string, logger: string, message: string) => void): Promise<void> {
  const admin = new pg.Client({ ...connection, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) {
      await admin.query(`create database ${pg.escapeIdentifier(database)}`);
      log('INFO', 'odoo.service.db', `database ${database} created`);
    }
  } finally {
    await admin.end();
  }
}
