import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `host:port` of the server instance databases live on, as Adminer takes a server: the host and
 * port of the executor's FORJA_ERP_DATABASE_URL, else the private cluster's under
 * FORJA_DATA_DIR/erp-postgres (its port in cluster.json). Only the address: Adminer never gets
 * the admin's password. Undefined when neither exists yet (the executor has not run here).
 */
export function erpServerAddress(dataDir: string, erpDatabaseUrl: string | undefined): string | undefined {
  if (erpDatabaseUrl) {
    const url = new URL(erpDatabaseUrl);
    return `${url.hostname || '127.0.0.1'}:${url.port || '5432'}`;
  }
  try {
    const state = JSON.parse(readFileSync(join(dataDir, 'erp-postgres', 'cluster.json'), 'utf8')) as { port?: unknown };
    return Number.isInteger(state.port) ? `127.0.0.1:${String(state.port)}` : undefined;
  } catch {
    return undefined;
  }
}
