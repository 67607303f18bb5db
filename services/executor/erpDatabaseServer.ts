import { join } from 'node:path';
import { startPostgresCluster } from '#shared/local/postgresCluster.ts';
import { parsePgUrl } from './database/pgServer.ts';
import type { ErpDatabaseServer } from './runtime/runtime.ts';

export interface ErpDatabaseServerHandle {
  /** An admin connection URL (may create and drop databases). */
  adminUrl: string;
  server: ErpDatabaseServer;
  describe: string;
  close(): Promise<void>;
}

/** host, port, user and password of the admin URL, as the ERP's --db_* options take them. */
export function serverOf(url: string): ErpDatabaseServer {
  const { host, port, user, password } = parsePgUrl(url);
  return { host, port: Number(port), user, password };
}

/** The OS user the private ERP cluster runs as (as root): not `postgres`, who runs the event store's cluster. */
export const ERP_CLUSTER_OS_USER = 'forja-erpdb';

/**
 * The PostgreSQL server instance databases live on: FORJA_ERP_DATABASE_URL, or a private cluster
 * under FORJA_DATA_DIR/erp-postgres, so customer databases never share a server with the event
 * store (architecture §4). The private cluster runs as its own OS user: whatever a customer
 * database could make its server do touches none of the event store's files, nor uploads (0600).
 */
export async function openErpDatabaseServer(url: string | undefined, dataDir: string): Promise<ErpDatabaseServerHandle> {
  if (url) {
    const server = serverOf(url);
    return { adminUrl: url, server, describe: `instance databases on ${server.host}:${server.port}`, close: async () => {} };
  }
  const dir = join(dataDir, 'erp-postgres');
  const cluster = await startPostgresCluster(dir, 'postgres', { osUser: ERP_CLUSTER_OS_USER });
  return {
    adminUrl: cluster.url,
    server: serverOf(cluster.url),
    describe: `instance databases on a private PostgreSQL at 127.0.0.1:${cluster.port} (${dir})`,
    close: async () => {
      if (cluster.startedHere) await cluster.stop();
    },
  };
}
