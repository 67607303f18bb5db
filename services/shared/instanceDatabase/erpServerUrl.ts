import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The admin URL of the server instance databases live on, for the processes beside the executor
 * (database admin, monitoring, web shell) that must find the server it opened: its
 * FORJA_ERP_DATABASE_URL, else the private cluster under FORJA_DATA_DIR/erp-postgres (its port and
 * generated password in cluster.json, 0600, written by startPostgresCluster). Undefined when
 * neither exists yet: the executor has not run on this data folder.
 */
export function erpServerAdminUrl(dataDir: string, erpDatabaseUrl: string | undefined): string | undefined {
  if (erpDatabaseUrl) return erpDatabaseUrl;
  try {
    const state = JSON.parse(readFileSync(join(dataDir, 'erp-postgres', 'cluster.json'), 'utf8')) as { port?: unknown; password?: unknown };
    if (!Number.isInteger(state.port) || typeof state.password !== 'string') return undefined;
    return `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${String(state.port)}/postgres`;
  } catch {
    return undefined;
  }
}

/** Only the host and port of that server: what a tool that must never hold the admin's password is given. */
export function erpServerAddress(dataDir: string, erpDatabaseUrl: string | undefined): { host: string; port: number } | undefined {
  const adminUrl = erpServerAdminUrl(dataDir, erpDatabaseUrl);
  if (!adminUrl) return undefined;
  const url = new URL(adminUrl);
  return { host: decodeURIComponent(url.hostname) || '127.0.0.1', port: Number(url.port || 5432) };
}
