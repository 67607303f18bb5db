import { spawnSync } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import { basic, type TestPlatform } from './platform.ts';
import { onTeardown } from './teardown.ts';
import { waitUntil } from './wait.ts';

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

/** One call to the control plane's API; `json` becomes the body, sent as application/json. */
export type ApiCall = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

/** Calls the API of the platform `platform()` gives (started in a `before` hook) as `user`, over HTTP Basic. */
export function apiCaller(platform: () => TestPlatform, user = 'dev@example.com'): ApiCall {
  return (path, init = {}) =>
    fetch(`${platform().urls.controlPlane}${path}`, {
      ...init,
      headers: { authorization: basic(user), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
}

/** ERP servers outlive the executor by design: stops every running instance (the runs' working instances) and waits for them, at most 30 s. */
export async function stopRunningInstances(call: ApiCall): Promise<void> {
  const running = async () => (await (await call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>;
  for (const { slug } of await running()) await call(`/api/v1/instances/${slug}/action`, { method: 'POST', json: { action: 'stop' } });
  await waitUntil(async () => (await running()).length === 0, 'the working instances to stop', 30_000).catch(() => undefined);
}
