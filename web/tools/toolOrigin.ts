import type { IncomingMessage } from 'node:http';

/**
 * Whether a request to a tool comes from web's own pages. A tool behind web either has no CSRF
 * check of its own (maildev) or skips it for requests carrying the secret web adds (Jupyter,
 * code-server), and a WebSocket escapes web's CSRF check altogether: so web refuses a write or a
 * WebSocket from another origin (an ERP's page at <slug>.<domain>, which is the same site as web
 * in the documented layout, so its requests carry web's cookie; or any other site). Browsers send
 * Origin with every cross-origin write and WebSocket, and Sec-Fetch-Site with every request; a
 * request without either comes from no browser page.
 */
export function sameOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A write a tool must only take from web's own pages. */
export const isUnsafe = (method: string | undefined): boolean => UNSAFE.has(method ?? '');
