import { SESSION_COOKIE, type WebSession } from './webSession.ts';

/** One Server-Sent Event as a browser's EventSource sees it (`event` is `message` unless named). */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface EventStream {
  status: number;
  headers: Headers;
  /** The body of a response that is not a stream (an error page, a redirect). */
  text(): Promise<string>;
  /** The next event (comments skipped), or an error after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** Events until one satisfies `done` (included). */
  until(done: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  /** Comments (`: …` lines) seen so far. */
  comments: string[];
  close(): void;
}

/**
 * Opens `path` of web as an EventSource would, with the session's cookie and `headers` (a
 * `Last-Event-ID` for a reconnect), and parses the stream as the SSE spec says.
 */
export async function openEventStream(baseUrl: string, session: WebSession | undefined, path: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const abort = new AbortController();
  const cookie = session?.cookie;
  const res = await fetch(`${baseUrl}${path}`, {
    headers: { accept: 'text/event-stream', ...(cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {}), ...headers },
    redirect: 'manual',
    signal: abort.signal,
  });
  const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const reader = streaming ? res.body!.getReader() : undefined;
  const decoder = new TextDecoder();
  const ready: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = '';
  let pending: ReturnType<NonNullable<typeof reader>['read']> | undefined;
  let current: { id?: string; event?: string; data: string[] } = { data: [] };

  const parse = () => {
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (current.data.length > 0 || current.event || current.id !== undefined) ready.push({ id: current.id, event: current.event ?? 'message', data: current.data.join('\n') });
        current = { data: [] };
      } else if (line.startsWith(':')) {
        comments.push(line.slice(1).trim());
      } else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') current.data.push(value);
        else if (field === 'id') current.id = value;
        else if (field === 'event') current.event = value;
      }
    }
  };

  const stream: EventStream = {
    status: res.status,
    headers: res.headers,
    comments,
    text: () => res.text(),
    async next(timeoutMs = 5000) {
      if (!reader) throw new Error(`not an event stream (status ${res.status})`);
      const deadline = Date.now() + timeoutMs;
      while (ready.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        let timer: NodeJS.Timeout | undefined;
        // One read stays pending across calls: a read abandoned on timeout would swallow its chunk.
        pending ??= reader.read();
        const chunk = await Promise.race([pending, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left)))]);
        clearTimeout(timer);
        if (chunk === 'timeout') continue;
        pending = undefined;
        if (chunk.done) throw new Error('the stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
        parse();
      }
      return ready.shift()!;
    },
    async until(done, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      const events: SseEvent[] = [];
      for (;;) {
        const event = await stream.next(Math.max(1, deadline - Date.now()));
        events.push(event);
        if (done(event)) return events;
      }
    },
    close: () => abort.abort(),
  };
  return stream;
}
