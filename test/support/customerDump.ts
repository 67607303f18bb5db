import { spawnSync } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PostgresCluster } from '#shared/local/postgresCluster.ts';
import { runDir } from './runDir.ts';
import { onTeardown } from './teardown.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));

/**
 * A customer's 16.0 database (`sale` and `crm`, made by the ERP stand-in on `cluster`), dumped with
 * `pg_dump -Fc` and served over http on 127.0.0.1 for a migration's `pull_url`; closed at teardown.
 */
export async function servedCustomerDump(cluster: PostgresCluster): Promise<{ url: string }> {
  const source = `customer_${Date.now()}_${process.pid}`;
  const parsed = new URL(cluster.url);
  const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
  const installed = spawnSync(STANDIN, ['-d', source, '-i', 'sale,crm', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' } });
  if (installed.status !== 0) throw new Error(`the stand-in could not make the customer database: ${installed.stderr}`);
  const file = join(runDir('customer-dump'), 'customer.dump');
  const dumped = spawnSync('pg_dump', ['-Fc', '-f', file, cluster.urlFor(source)], { encoding: 'utf8' });
  if (dumped.status !== 0) throw new Error(`pg_dump of the customer database failed: ${dumped.stderr}`);
  const server = createServer((req, res) => {
    if (req.url !== '/customer.dump') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': String(statSync(file).size), 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTeardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/customer.dump` };
}
