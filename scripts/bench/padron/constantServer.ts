import { createServer } from 'node:http';

/**
 * The HTTP ceiling anchor: a plain node:http server answering every request with one precomputed
 * response, the bytes of a real lookup hit (its body and its headers: ETag, Cache-Control…), so the
 * load generator parses the same response from both and only the service's own work differs. Run
 * as a child process like the lookup service; prints its port when listening.
 * argv: body, headers as JSON.
 */
const body = Buffer.from(process.argv[2] ?? '{"cuit":"20000000001","results":[]}');
const headers = { ...(JSON.parse(process.argv[3] ?? '{}') as Record<string, string>), 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
