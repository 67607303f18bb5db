import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename } from 'node:path';

/** Serves each file at `/<its name>` on 127.0.0.1, as a customer's download link would; says the base URL. */
export async function serveFiles(files: readonly string[]): Promise<{ url: (file: string) => string; close: () => Promise<void> }> {
  const byName = new Map(files.map((file) => [`/${basename(file)}`, file]));
  const server = createServer((req, res) => {
    const file = byName.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': String(statSync(file).size), 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: (file) => `${base}/${basename(file)}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
