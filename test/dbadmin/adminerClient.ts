import { SESSION_COOKIE, type WebSession } from '#test/support/webSession.ts';

export interface AdminerResponse {
  status: number;
  headers: Headers;
  html: string;
}

/**
 * A signed-in browser's requests to Adminer through web: Forja's session cookie plus the cookies
 * Adminer sets (its session and key), Adminer's relative redirects followed like a browser.
 */
export function adminerClient(web: string, session: WebSession) {
  const cookies = new Map<string, string>(session.cookie ? [[SESSION_COOKIE, session.cookie]] : []);
  const send = async (url: string, init: RequestInit): Promise<AdminerResponse> => {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(new URL(url, web), { ...init, headers: { ...(init.headers as Record<string, string>), cookie }, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';', 1);
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = res.headers.get('location');
    if (res.status === 302 && location) {
      await res.body?.cancel();
      return send(new URL(location, new URL(url, web)).toString(), { method: 'GET', headers: init.headers ?? {} });
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
