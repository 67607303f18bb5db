import { WebSocket } from 'ws';
import type { ServerMessage } from '#web/shell/shellMessages.ts';
import { SESSION_COOKIE, type WebSession } from '#test/support/webSession.ts';

/** A web shell client as the page is one: the session cookie, web's own Origin, JSON input, binary output. */
export interface ShellClient {
  ws: WebSocket;
  /** Everything the terminal showed so far, as text. */
  output(): string;
  messages: ServerMessage[];
  type(text: string): void;
  resize(cols: number, rows: number): void;
  /** Waits until the output matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  closed: Promise<number>;
}

export interface ShellOptions {
  origin?: string;
  query?: string;
}

const socketUrl = (web: string, slug: string, query = '') => `${web.replace(/^http/, 'ws')}/instances/${slug}/shell/socket${query}`;
const cookieOf = (session: WebSession | undefined) => (session?.cookie ? { cookie: `${SESSION_COOKIE}=${session.cookie}` } : {});

/** Opens a shell; rejects with the HTTP status when the upgrade is refused. */
export function openShell(web: string, session: WebSession, slug: string, options: ShellOptions = {}): Promise<ShellClient> {
  const ws = new WebSocket(socketUrl(web, slug, options.query), { headers: cookieOf(session), origin: options.origin ?? web });
  let text = '';
  const messages: ServerMessage[] = [];
  ws.on('message', (data, isBinary) => {
    if (isBinary) text += (data as Buffer).toString('utf8');
    else messages.push(JSON.parse(data.toString()) as ServerMessage);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const client: ShellClient = {
    ws,
    output: () => text,
    messages,
    type: (data) => ws.send(JSON.stringify({ type: 'input', data })),
    resize: (cols, rows) => ws.send(JSON.stringify({ type: 'resize', cols, rows })),
    async waitFor(pattern, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(text)) {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for the shell to show ${pattern}; it showed ${JSON.stringify(text.slice(-500))}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return pattern.exec(text)!;
    },
    closed,
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`refused with ${res.statusCode}`), { status: res.statusCode }));
      ws.terminate();
    });
    ws.once('error', (error) => reject(error));
  });
}

/** The status a refused upgrade answered with (0 when it was not refused). */
export async function upgradeStatus(web: string, session: WebSession | undefined, slug: string, origin?: string): Promise<number> {
  try {
    const client = await openShell(web, session ?? ({ cookie: undefined } as WebSession), slug, origin === undefined ? {} : { origin });
    client.ws.close();
    return 0;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
}
