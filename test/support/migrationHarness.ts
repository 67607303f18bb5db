import { spawnSync } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import { onTeardown } from './teardown.ts';

/** A migration run as the API shows it (RunOut with its steps), what end-to-end tests read. */
export interface RunBody {
  status: string;
  error: string | null;
  steps: Array<{ id: string; status: string; error: string | null }>;
}

/** Dumps `database` (custom format) into `dir`/customer.dump and serves it over http on 127.0.0.1; returns its URL. */
export async function serveCustomerDump(databaseUrl: string, dir: string): Promise<string> {
  const dumpFile = join(dir, 'customer.dump');
  const dumped = spawnSync('pg_dump', ['-Fc', '-f', dumpFile, databaseUrl], { encoding: 'utf8' });
  expect(dumped.status, dumped.stderr).to.equal(0);
  const server: Server = createServer((req, res) => {
    if (req.url !== '/customer.dump') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': String(statSync(dumpFile).size) });
    createReadStream(dumpFile).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTeardown(async () => void server.close());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/customer.dump`;
}
