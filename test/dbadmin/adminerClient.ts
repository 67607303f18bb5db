import { openTool, toolFetch, type ToolSession } from '#test/support/toolSession.ts';
import { SESSION_COOKIE, type WebSession } from '#test/support/webSession.ts';

export interface AdminerResponse {
  status: number;
  headers: Headers;
  html: string;
}

/**
 * A signed-in browser's requests to Adminer on the tools origin: the tool host is opened through
 * web's link (a one-time token, then the host's cookie), then every request goes to that host with
 * its cookie, its own Origin and the cookies Adminer sets (its session and key), Adminer's relative
 * redirects followed like a browser. When web does not open the tool (403, sign-in), web's answer to the request is returned.
 */
export function adminerClient(web: string, session: WebSession) {
  const cookies = new Map<string, string>();
  const tools = new Map<string, ToolSession>();
  const toolFor = async (path: string): Promise<ToolSession | undefined> => {
    const opened = await session.get(path);
    if (opened.status !== 303 || !opened.location?.includes('/.forja/enter?')) return undefined;
    const host = new URL(opened.location).host;
    if (!tools.has(host)) tools.set(host, await openTool(session, path));
    return tools.get(host);
  };
  const send = async (url: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<AdminerResponse> => {
    const path = url.startsWith('http') ? `${new URL(url).pathname}${new URL(url).search}` : url;
    const tool = await toolFor(path);
    if (!tool) {
      const res = await fetch(new URL(path, web), { ...init, headers: { ...init.headers, ...(session.cookie ? { cookie: `${SESSION_COOKIE}=${session.cookie}` } : {}) }, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
      return { status: res.status, headers: res.headers, html: await res.text() };
    }
    const cookie = [tool.cookie, ...[...cookies].map(([name, value]) => `${name}=${value}`)].join('; ');
    const res = await toolFetch(`${tool.origin}${path}`, { method: init.method, ...(init.body !== undefined ? { body: init.body } : {}), headers: { origin: tool.origin, ...init.headers, cookie } });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';', 1);
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = res.headers.get('location');
    if (res.status === 302 && location) {
      await res.body?.cancel();
      return send(new URL(location, `${tool.origin}${path}`).toString(), { method: 'GET', headers: init.headers ?? {} });
    }
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  return {
    request: (method: string, url: string, headers: Record<string, string> = {}) => send(url, { method, headers }),
    get: (url: string, headers: Record<string, string> = {}) => send(url, { method: 'GET', headers }),
    post: (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      send(url, { method: 'POST', body: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } }),
  };
}

/** Adminer's CSRF token, from any of its pages with a form. */
export function adminerToken(html: string): string {
  const match = /name=['"]token['"] value=['"]([^'"]+)['"]/.exec(html);
  if (!match) throw new Error('no CSRF token in the page');
  return match[1]!;
}

/** The text of the table cells of an Adminer page (it leaves `<td>` unclosed). */
export function cellsOf(html: string): string[] {
  return [...html.matchAll(/<td[^>]*>(.*?)(?=<td|<\/td>|<tr|<\/tr>|<\/table>)/gs)].map((match) => match[1]!.replace(/<[^>]+>/g, '').trim());
}
