import { createHmac } from 'node:crypto';
import pg from 'pg';

/** The role the PostgreSQL exporter connects as: member of pg_monitor, owner of nothing. */
export const MONITORING_ROLE = 'forja_monitoring';

/** The monitoring role's password: derived under the master key, so it is stored nowhere and set again at every start. */
export function monitoringPassword(masterKey: Buffer | string): string {
  return createHmac('sha256', masterKey).update('forja monitoring role').digest('base64url');
}

/**
 * Creates (or re-asserts) the monitoring role on the ERP database server and answers the URL the
 * exporter connects with. The exporter never gets the admin URL: a superuser's password in a
 * tool's environment would be a key to every customer database, while pg_monitor only reads
 * statistics and sizes (pg_database_size of any database), no table's rows.
 */
export async function ensureMonitoringRole(adminUrl: string, masterKey: Buffer | string): Promise<string> {
  const password = monitoringPassword(masterKey);
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_roles where rolname = $1', [MONITORING_ROLE]);
    const attributes = 'login nosuperuser nocreatedb nocreaterole noreplication nobypassrls inherit';
    // The password is a quoted literal: ALTER/CREATE ROLE take no bind parameters.
    const literal = client.escapeLiteral(password);
    await client.query(`${exists.rowCount ? 'alter' : 'create'} role ${MONITORING_ROLE} with ${attributes} password ${literal}`);
    await client.query(`grant pg_monitor to ${MONITORING_ROLE}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.username = MONITORING_ROLE;
  url.password = encodeURIComponent(password);
  // The exporter's driver (lib/pq) requires TLS unless told otherwise, and knows no `prefer`: a
  // server on this machine (the private cluster) has none; a remote one keeps what its URL says.
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (!url.searchParams.has('sslmode') && loopback) url.searchParams.set('sslmode', 'disable');
  return url.toString();
}
