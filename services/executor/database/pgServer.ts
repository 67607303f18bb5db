/** Where the instances' PostgreSQL server is and who Forja is on it, read from its admin URL. */
export interface PgServer {
  host: string;
  port: string;
  user: string;
  password: string;
  /** The URL's database: where administrative statements run; never an instance database. */
  maintenanceDatabase: string;
  sslmode?: string;
}

/** Parses `postgres://user:password@host:port/database?sslmode=…&host=/socket/dir`. */
export function parsePgUrl(adminUrl: string): PgServer {
  let url: URL;
  try {
    url = new URL(adminUrl);
  } catch {
    throw new Error('the ERP database URL is not a postgres:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error('the ERP database URL is not a postgres:// URL');
  const user = decodeURIComponent(url.username);
  const sslmode = url.searchParams.get('sslmode');
  return {
    host: url.searchParams.get('host') ?? (decodeURIComponent(url.hostname).replace(/^\[(.*)\]$/, '$1') || 'localhost'),
    port: url.port || '5432',
    user,
    password: decodeURIComponent(url.password),
    maintenanceDatabase: decodeURIComponent(url.pathname.slice(1)) || user || 'postgres',
    ...(sslmode ? { sslmode } : {}),
  };
}

/** The same server and credentials, for another database. */
export function urlForDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** The same server, another database, as another user (an instance's own role). */
export function urlAs(adminUrl: string, database: string, as: { user: string; password: string }): string {
  const url = new URL(urlForDatabase(adminUrl, database));
  url.username = encodeURIComponent(as.user);
  url.password = encodeURIComponent(as.password);
  return url.toString();
}

/** What the executor's sessions call themselves on the server (application_name) unless a job names them. */
export const DEFAULT_APPLICATION_NAME = 'forja-executor';

/**
 * The environment for pg_dump, pg_restore and psql: the password travels in PGPASSWORD, never on
 * a command line where `ps` shows it. Inherited PG* variables are dropped so a stray PGSERVICE or
 * PGOPTIONS on the executor's host cannot redirect a tool. PGAPPNAME tags the tool's session, so
 * aborting a job can find and cancel it on the server.
 */
export function pgToolEnv(server: PgServer, applicationName = DEFAULT_APPLICATION_NAME): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PG')) env[key] = value;
  return {
    ...env,
    PGHOST: server.host,
    PGPORT: server.port,
    PGUSER: server.user,
    PGPASSWORD: server.password,
    PGAPPNAME: applicationName,
    PGCONNECT_TIMEOUT: '15',
    ...(server.sslmode ? { PGSSLMODE: server.sslmode } : {}),
  };
}
