import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'chai';

/** One request as the fuzzer sends it: any method, an already encoded path, raw body bytes. */
export interface FuzzRequest {
  method: string;
  /** Path and query, percent-encoded where needed (node refuses raw spaces and controls in a path). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Endless answers (an event stream): keep the status and headers, hang up on the body. */
  headersOnly?: boolean;
}

export interface FuzzResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Bodies larger than this that the server answers by closing the connection count as refused (413 without reading them). */
const LARGE_BODY = 64 * 1024;
/** A body is read up to this much; the checks need its beginning, not megabytes. */
const MAX_READ = 1024 * 1024;

export interface FuzzClient {
  send(req: FuzzRequest): Promise<FuzzResponse>;
  close(): void;
}

/**
 * A keep-alive HTTP client of one server the test started on 127.0.0.1, each request bounded by
 * `timeoutMs` (a server that does not answer in time fails the case).
 */
export function fuzzClient(baseUrl: string, timeoutMs = 10_000): FuzzClient {
  const url = new URL(baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`the fuzzer talks only to servers on 127.0.0.1, not ${url.hostname}`);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });

  function once(req: FuzzRequest): Promise<FuzzResponse & { retry?: boolean }> {
    return new Promise((resolve, reject) => {
      const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
      let answered = false;
      const outgoing = request(
        { agent, host: url.hostname, port: url.port, method: req.method, path: req.path, headers: { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) } },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
          };
          if (req.headersOnly) {
            res.destroy();
            return done();
          }
          res.on('data', (chunk: Buffer) => {
            if (size < MAX_READ) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', done);
          // The server may close after answering (413 with Connection: close): what arrived is the answer.
          res.on('error', done);
          res.on('aborted', done);
        },
      );
      const timer = setTimeout(() => {
        outgoing.destroy();
        reject(new Error(`no answer within ${timeoutMs} ms to ${req.method} ${req.path.slice(0, 200)}`));
      }, timeoutMs);
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (answered) return;
        clearTimeout(timer);
        // A keep-alive socket the server closed just as it was reused: send again (node's documented race).
        if (outgoing.reusedSocket && error.code === 'ECONNRESET') return resolve({ status: 0, headers: {}, body: '', retry: true });
        // A server may refuse a body far over its limit by closing instead of reading it all.
        if (body && body.length > LARGE_BODY && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return resolve({ status: 413, headers: {}, body: '' });
        reject(new Error(`${req.method} ${req.path.slice(0, 200)}: ${error.message}`));
      });
      outgoing.end(body);
    });
  }

  return {
    async send(req) {
      const first = await once(req);
      return first.retry ? once(req) : first;
    },
    close: () => agent.destroy(),
  };
}

/** What a stack trace or an internal path looks like in a body. */
const LEAKS: Array<[RegExp, string]> = [
  [/\bat .+\(.+:\d+:\d+\)/, 'a stack frame'],
  [/^\s*at [^\s]+ \(?(file:|node:|\/)/m, 'a stack frame'],
  [/\b\w*Error:.*(\/|\\)[\w.-]+\.(ts|js|mjs|cjs)\b/, 'an error naming a source file'],
  [/\bnode_modules[\\/]/, 'a node_modules path'],
  [/Template render error/, 'a template error'],
];

/** Headers and body of a response, for an assertion message. */
export function describeResponse(res: FuzzResponse): string {
  return `${res.status} ${String(res.headers['content-type'] ?? '(no content-type)')}: ${JSON.stringify(res.body.slice(0, 300))}`;
}

/**
 * What every answer to anything must be: no 5xx (but a 503 with Retry-After, which sheds load on
 * purpose), no stack trace or source path in the body, and JSON when the endpoint speaks JSON.
 */
export function expectSound(res: FuzzResponse, what: string, options: { json: boolean }): void {
  const shed = res.status === 503 && res.headers['retry-after'] !== undefined;
  expect(res.status < 500 || shed, `${what} answered ${describeResponse(res)}`).to.equal(true);
  // Scripts and stylesheets served as files hold code, not answers.
  const asset = /javascript|css|image|font/.test(String(res.headers['content-type'] ?? ''));
  if (!asset) for (const [pattern, label] of LEAKS) expect(pattern.test(res.body), `${what}: ${label} in the body: ${describeResponse(res)}`).to.equal(false);
  if (options.json && res.body !== '' && res.status !== 304) {
    expect(String(res.headers['content-type'] ?? ''), `${what}: not JSON: ${describeResponse(res)}`).to.match(/^application\/json\b/);
    expect(() => JSON.parse(res.body) as unknown, `${what}: unreadable JSON: ${describeResponse(res)}`).not.to.throw();
  }
}

/** The process stays up: its `/health` answers 200. */
export async function expectHealthy(client: FuzzClient, name: string): Promise<void> {
  const res = await client.send({ method: 'GET', path: '/health' });
  expect(res.status, `${name} /health after the batch: ${describeResponse(res)}`).to.equal(200);
}
