import type { ServerResponse } from 'node:http';

/** Seconds between the waiting page's reloads, and its Retry-After. */
export const WAKE_REFRESH_S = 3;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A router page: small, self-contained (no Forja stylesheet to reach), never cached. */
function page(res: ServerResponse, status: number, title: string, message: string, { refresh = false } = {}): void {
  const head = refresh ? `<meta http-equiv="refresh" content="${WAKE_REFRESH_S}">` : '';
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${head}<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1b1b1b}h1{font-size:1.4rem}</style></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>
`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    ...(refresh ? { 'retry-after': String(WAKE_REFRESH_S) } : {}),
  });
  res.end(body);
}

export const notFoundPage = (res: ServerResponse, host: string | undefined): void =>
  page(res, 404, 'No instance here', `No Forja instance answers at ${host ?? 'this address'}. Check the address on the instance's page in Forja.`);

/** The instance is on its way (woken, queued or provisioning): the page reloads itself until it runs. */
export const wakingPage = (res: ServerResponse, slug: string, doing: string): void =>
  page(res, 503, `${slug} is ${doing}`, `Forja is getting its ERP ready. This page reloads every ${WAKE_REFRESH_S} seconds and shows the ERP as soon as it runs.`, { refresh: true });

/** Stopped, failed or destroyed: the router does not start it; a person decides in Forja. */
export const notRunningPage = (res: ServerResponse, slug: string, status: string): void =>
  page(res, status === 'destroyed' ? 410 : 503, `${slug} is ${status}`, `${slug} is ${status}${status === 'destroyed' ? ' and will not come back' : '; start it (or look at why it failed) on its page in Forja'}. Only a sleeping instance is woken by a visit.`);

export const unreachablePage = (res: ServerResponse, slug: string): void =>
  page(res, 502, `${slug} does not answer`, `${slug} is running but its ERP did not answer. Try again shortly; if it persists, look at the instance's log in Forja.`);

/** The ERP's database manager, which the router never passes on: copies and dumps of a database go through Forja. */
export function closedPage(res: ServerResponse): void {
  // Answered before the body is read (an upload is not worth taking in), so the connection cannot serve another request.
  res.setHeader('connection', 'close');
  page(res, 404, 'Not here', "The ERP's database manager is closed on the instances Forja runs. To copy an instance or start one from a database dump, use Forja.");
}
