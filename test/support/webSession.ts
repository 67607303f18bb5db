import { PASSWORD } from './platform.ts';

export const SESSION_COOKIE = 'forja.sid';

export interface WebResponse {
  status: number;
  headers: Headers;
  /** `Location`, for the 303s a test wants to see rather than follow. */
  location: string | null;
  setCookies: string[];
  html: string;
}

/**
 * A browser-like client of web over plain HTTP: keeps the session cookie, never follows
 * redirects (so a test sees each 303), and sends the session's CSRF token with its POSTs.
 */
export interface WebSession {
  /** The session cookie's value, if the server has set one. */
  readonly cookie: string | undefined;
  get(path: string, headers?: Record<string, string>): Promise<WebResponse>;
  /** A form POST carrying `_csrf` (the session's token unless `csrf` overrides it; `false` sends none). */
  post(path: string, form: Record<string, string>, options?: { csrf?: string | false; headers?: Record<string, string> }): Promise<WebResponse>;
  /** The session's CSRF token, read from a page as a browser would. */
  csrfToken(): Promise<string>;
  /** Signs in through the form; resolves with the POST's answer. */
  login(email: string, password?: string, next?: string): Promise<WebResponse>;
}

/** The CSRF token in a page: every page carries it in the layout's `hx-headers`. */
export function csrfFrom(html: string): string {
  const token = /"X-CSRF-Token": "([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no CSRF token in the page');
  return token;
}

/** The session cookie a response sets: its value and attributes (lower-case names). */
export function sessionCookieOf(response: WebResponse): { value: string; attributes: Map<string, string> } | undefined {
  const header = response.setCookies.find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));
  if (!header) return undefined;
  const [pair = '', ...rest] = header.split(';').map((part) => part.trim());
  const attributes = new Map(rest.map((attribute) => [attribute.split('=')[0]!.toLowerCase(), attribute.split('=').slice(1).join('=')]));
  return { value: pair.slice(SESSION_COOKIE.length + 1), attributes };
}

export function webSession(baseUrl: string, initialCookie?: string): WebSession {
  let cookie = initialCookie;
  let token: { cookie: string | undefined; value: string } | undefined;

  async function send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<WebResponse> {
    const headers = { ...init.headers, ...(cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {}) };
    const res = await fetch(`${baseUrl}${path}`, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
    const response: WebResponse = { status: res.status, headers: res.headers, location: res.headers.get('location'), setCookies: res.headers.getSetCookie(), html: await res.text() };
    const set = sessionCookieOf(response);
    if (set) cookie = isExpired(set.attributes) ? undefined : set.value;
    return response;
  }

  const session: WebSession = {
    get cookie() {
      return cookie;
    },
    get: (path, headers = {}) => send(path, { method: 'GET', headers }),
    async post(path, form, options = {}) {
      const csrf = options.csrf === undefined ? await session.csrfToken() : options.csrf;
      const fields = csrf === false ? form : { _csrf: csrf, ...form };
      return send(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers }, body: new URLSearchParams(fields).toString() });
    },
    async csrfToken() {
      if (token && token.cookie === cookie && cookie !== undefined) return token.value;
      // /login renders for visitors and sends the signed-in on; the project list renders for them.
      let page = await send('/login', { method: 'GET', headers: {} });
      if (page.status === 303) page = await send('/projects', { method: 'GET', headers: {} });
      token = { cookie, value: csrfFrom(page.html) };
      return token.value;
    },
    async login(email, password = PASSWORD, next) {
      return session.post('/login', { email, password, ...(next === undefined ? {} : { next }) });
    },
  };
  return session;
}

function isExpired(attributes: Map<string, string>): boolean {
  const expires = attributes.get('expires');
  return (expires !== undefined && Date.parse(expires) <= Date.now()) || attributes.get('max-age') === '0';
}

/** The visible text of some HTML, entities decoded and whitespace collapsed, for asserting messages. */
export function textOf(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|#x27);/g, (entity) => ({ '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" })[entity] ?? entity)
    .replace(/\s+/g, ' ')
    .trim();
}
