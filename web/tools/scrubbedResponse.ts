import type { IncomingMessage, ServerResponse } from 'node:http';

/** Headers about one connection, not the response: never copied from the tool's connection to the browser's. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

const hasBody = (req: IncomingMessage, status: number) => req.method !== 'HEAD' && status !== 204 && status !== 304 && status >= 200;

/**
 * Sends the tool's response on to the browser, with `secret` taken out of its headers and of its
 * HTML pages: a tool may echo the secret web authenticates with (Jupyter writes its token in every
 * page's `data-jupyter-api-token`). Pages are read whole to be cleaned; everything else streams.
 */
export function forwardScrubbed(proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse, secret: string): void {
  for (const [name, value] of Object.entries(proxyRes.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    res.setHeader(name, Array.isArray(value) ? value.map((one) => one.replaceAll(secret, '')) : value.replaceAll(secret, ''));
  }
  const status = proxyRes.statusCode ?? 502;
  res.statusCode = status;
  if (proxyRes.statusMessage) res.statusMessage = proxyRes.statusMessage;
  const html = String(proxyRes.headers['content-type'] ?? '').startsWith('text/html');
  // The request asked for no compression (web sets Accept-Encoding: identity): an encoded page is passed as it is.
  if (!html || proxyRes.headers['content-encoding'] || !hasBody(req, status)) return void proxyRes.pipe(res);
  const chunks: Buffer[] = [];
  proxyRes.on('data', (chunk: Buffer) => chunks.push(chunk));
  proxyRes.on('error', () => res.destroy());
  proxyRes.on('end', () => {
    const body = Buffer.from(Buffer.concat(chunks).toString('utf8').replaceAll(secret, ''));
    res.setHeader('content-length', body.length);
    res.end(body);
  });
}
