import http, { type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { displayUrl } from '#shared/net/displayUrl.ts';
import { pullUrlProblem, type PullAllowList } from '#shared/net/pullUrl.ts';
import { HostCheckError, pinnedLookup, resolveAndCheck, type CheckedHost, type HostLookup } from '#shared/net/resolveAndCheck.ts';
import { abortError } from '../../abortError.ts';
import { DownloadError } from './downloadError.ts';

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface GetOptions {
  allow: PullAllowList;
  lookup: HostLookup | undefined;
  signal: AbortSignal;
  /** A connection silent for this long (no answer, no bytes) is dropped. */
  idleTimeoutMs: number;
  log: (line: string) => Promise<void>;
}

/** The final answer, its body unread; `url` is where it came from, without credentials. */
export interface Answer {
  request: ClientRequest;
  response: IncomingMessage;
  url: string;
  /** True once the connection was dropped for silence. */
  timedOut: () => boolean;
}

/**
 * GET `url`, following up to MAX_REDIRECTS redirects. Every hop is checked before it connects —
 * the URL (pullUrlProblem), then each address its host resolves to (resolveAndCheck) — and the
 * connection goes to the checked addresses only (no second DNS answer). Credentials in the URL go
 * as Basic authorization to the origin they were written for, never to another; an https URL may
 * not redirect to plain http.
 */
export async function getFollowing(url: string, headers: OutgoingHttpHeaders, options: GetOptions): Promise<Answer> {
  let current = new URL(url);
  let credentials = takeCredentials(current);
  for (let redirects = 0; ; redirects += 1) {
    const checked = await check(current, options);
    const answer = await get(current, checked, headers, credentials.origin === current.origin ? credentials.auth : undefined, options);
    const status = answer.response.statusCode ?? 0;
    const location = answer.response.headers.location;
    if (!REDIRECT_STATUSES.has(status) || location === undefined) return answer;
    answer.response.destroy();
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new DownloadError('protocol', `${displayUrl(current.href)} redirected (${status}) to something that is not a URL`);
    }
    const shown = displayUrl(next.href);
    if (redirects === MAX_REDIRECTS) throw new DownloadError('redirects', `more than ${MAX_REDIRECTS} redirects (the last one to ${shown}); the download stops there`);
    if (current.protocol === 'https:' && next.protocol === 'http:') throw new DownloadError('refused', `${displayUrl(current.href)} redirected from https to plain http (${shown}); refused`);
    const problem = pullUrlProblem(next.href, options.allow);
    if (problem) throw new DownloadError('refused', `redirected to ${shown}: ${problem}`);
    if (next.username || next.password) credentials = takeCredentials(next);
    await options.log(`redirected (${status}) to ${shown}`);
    current = next;
  }
}

async function check(url: URL, options: GetOptions): Promise<CheckedHost> {
  const problem = pullUrlProblem(url.href, options.allow);
  if (problem) throw new DownloadError('refused', problem);
  try {
    return await resolveAndCheck(url.hostname, options.allow, options.lookup);
  } catch (error) {
    if (error instanceof HostCheckError) throw new DownloadError(error.kind, error.message);
    throw error;
  }
}

function get(url: URL, checked: CheckedHost, headers: OutgoingHttpHeaders, auth: string | undefined, options: GetOptions): Promise<Answer> {
  if (options.signal.aborted) return Promise.reject(abortError(options.signal, `the download of ${displayUrl(url.href)}`));
  return new Promise((resolve, reject) => {
    let timedOut = false;
    let answered = false;
    const request = (url.protocol === 'https:' ? https : http).request({
      protocol: url.protocol,
      host: checked.host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { ...headers, host: url.host },
      ...(auth === undefined ? {} : { auth }),
      // One connection per request: a pooled socket would skip the check of the next hop.
      agent: false,
      lookup: pinnedLookup(checked),
      signal: options.signal,
      timeout: options.idleTimeoutMs,
    });
    request.on('timeout', () => {
      timedOut = true;
      request.destroy(new Error(`no data for ${silence(options.idleTimeoutMs)}`));
    });
    request.on('response', (response) => {
      answered = true;
      resolve({ request, response, url: url.href, timedOut: () => timedOut });
    });
    // After the answer the body stream reports the failure; this listener only keeps the process alive.
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (options.signal.aborted) reject(abortError(options.signal, `the download of ${displayUrl(url.href)}`));
      else reject(new DownloadError('network', `cannot download ${displayUrl(url.href)}: ${timedOut ? `no answer for ${silence(options.idleTimeoutMs)}` : (error.code ?? error.message)}`));
    });
    request.end();
  });
}

/** 200 ms, 60 s: how long a connection was silent, in messages. */
export function silence(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** The URL's user and password (decoded, for `auth`), removed from it; and the origin they belong to. */
function takeCredentials(url: URL): { auth: string | undefined; origin: string } {
  const auth = url.username || url.password ? `${decode(url.username)}:${decode(url.password)}` : undefined;
  url.username = '';
  url.password = '';
  return { auth, origin: url.origin };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
