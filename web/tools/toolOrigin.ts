import type { IncomingMessage } from 'node:http';

/**
 * Whether a request to a tool comes from the tool's own pages, `ownOrigin` being the origin of its
 * host on the tools origin (`http://mail.tools.localhost:8084`). A tool either has no CSRF check of
 * its own (maildev) or skips it for requests carrying the secret web adds (Jupyter, code-server),
 * and a WebSocket escapes CSRF checks altogether: so a write or a WebSocket from any other origin
 * is refused — web's, an ERP's page at <slug>.<domain>, and a sibling tool, which shares the tools'
 * site (`*.tools.localhost`) but not the origin. Browsers send Origin with every write and
 * WebSocket and Sec-Fetch-Site with every request; a request showing neither is refused too.
 */
export function sameOrigin(req: IncomingMessage, ownOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = req.headers.origin;
  if (origin !== undefined) return origin === ownOrigin;
  return site === 'same-origin';
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A request that may change something: a tool takes it only from its own origin. */
export const isUnsafe = (method: string | undefined): boolean => !SAFE.has(method ?? '');
