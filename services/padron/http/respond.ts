import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a JSON text as is: the lookup paths build their bodies as text. */
export function sendJson(res: ServerResponse, status: number, body: string, headers: OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { ...headers, 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Every error of the service: `{"detail": "..."}`. */
export function sendDetail(res: ServerResponse, status: number, detail: string, headers: OutgoingHttpHeaders = {}): void {
  sendJson(res, status, JSON.stringify({ detail }), headers);
}

/**
 * Whether an If-None-Match header matches `etag`. If-None-Match compares weakly (RFC 9110
 * §13.1.2), so a `W/` prefix a proxy added still matches; `*` matches any current representation.
 */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}
