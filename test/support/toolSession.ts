import { request } from 'node:http';
import { Readable } from 'node:stream';
import type { WebSession } from './webSession.ts';
import { upgradeRequest, type UpgradeAnswer } from './rawUpgrade.ts';

/** What a tool host answered (node:http: fetch cannot send another Host than the URL's). */
export interface ToolAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  location?: string;
}

/** A request to the tools origin's listener (127.0.0.1:port) as the host of `url` (`http://mail.tools.localhost:port/x`). */
export function toolRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<ToolAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: target.port, path: `${target.pathname}${target.search}`, method: init.method ?? 'GET', headers: { host: target.host, ...init.headers }, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ...(res.headers.location ? { location: res.headers.location } : {}) }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A WebSocket upgrade to the tools origin as the host of `url`. */
export function toolUpgrade(url: string, headers: Record<string, string>): Promise<UpgradeAnswer> {
  const target = new URL(url);
  return upgradeRequest(`http://127.0.0.1:${target.port}${target.pathname}${target.search}`, { host: target.host, ...headers });
}

/** A user signed in to one tool host: its origin and the cookie that host set. */
export interface ToolSession {
  origin: string;
  cookie: string;
  /** Where the sign-in sent the browser on (`to`). */
  landed: string;
  get(path: string, headers?: Record<string, string>): Promise<ToolAnswer>;
}

/** Follows web's 303 for the tool page `path` (`/mails/`) to the tools origin's sign-in; the entry URL web sent. */
export async function toolEntry(session: WebSession, path: string): Promise<string> {
  const res = await session.get(path);
  if (res.status !== 303 || !res.location?.includes('/.forja/enter?')) throw new Error(`web answered ${res.status} ${res.location ?? ''} for ${path}`);
  return res.location;
}

/** Opens a tool as `session`'s user the way a browser does: web's token, then the tool host's cookie. */
export async function openTool(session: WebSession, path: string): Promise<ToolSession> {
  const entry = await toolEntry(session, path);
  const answer = await toolRequest(entry);
  const setCookie = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  const cookie = setCookie.map((line) => line.split(';', 1)[0]).find((pair) => pair?.startsWith('forja.tool='));
  if (answer.status !== 303 || !cookie) throw new Error(`the tool's sign-in answered ${answer.status}: ${answer.body}`);
  const origin = new URL(entry).origin;
  return { origin, cookie, landed: answer.location!, get: (p, headers = {}) => toolRequest(`${origin}${p}`, { headers: { cookie, ...headers } }) };
}

/** `toolRequest` answered as fetch answers (a streamed body, Headers): for bodies of any size and bytes. */
export function toolFetch(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Response> {
  const target = new URL(url);
  // Node sends a DELETE's or OPTIONS' body unframed unless told its length.
  const length: Record<string, string> = init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: target.port, path: `${target.pathname}${target.search}`, method: init.method ?? 'GET', headers: { host: target.host, ...length, ...init.headers }, timeout: 30_000 }, (res) => {
      const headers = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
      const empty = init.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
      if (empty) res.resume();
      resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream), { status: res.statusCode ?? 0, headers }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** What a tool client answers: the tool host's answer, or web's when web did not open the tool (403, 404). */
export interface ToolClientAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * A browser-like client of the tools as `session`'s user: the first request for a tool host goes
 * through web's link (openTool), later ones straight to the host with its cookie; writes carry the
 * host's own Origin unless `headers` says otherwise.
 */
export function toolClient(session: WebSession) {
  const cookies = new Map<string, ToolSession>();
  return async (path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<ToolClientAnswer> => {
    const web = await session.get(path);
    if (web.status !== 303 || !web.location?.includes('/.forja/enter?')) return { status: web.status, headers: web.headers, text: web.html };
    const host = new URL(web.location).host;
    let tool = cookies.get(host);
    if (!tool) {
      tool = await openTool(session, path);
      cookies.set(host, tool);
    }
    const res = await toolFetch(`${tool.origin}${path}`, {
      method: init.method ?? 'GET',
      headers: { cookie: tool.cookie, origin: tool.origin, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
}
