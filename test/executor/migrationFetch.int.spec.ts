import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { DownloadError } from '#services/executor/migration/fetch/downloadError.ts';
import { downloadInput, type DownloadInputOptions } from '#services/executor/migration/fetch/downloadInput.ts';
import type { HostLookup } from '#shared/net/resolveAndCheck.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { waitUntil } from '#test/support/wait.ts';

const SIZE = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Seen {
  path: string;
  range: string | undefined;
  ifRange: string | undefined;
  authorization: string | undefined;
  host: string | undefined;
}

/**
 * A file server on 127.0.0.1 that serves `content` at /file with Range and If-Range (ETag `etag`),
 * counts what it was asked and how many body bytes it sent, and has the misbehaving routes the
 * download must cope with. `holdAt`: a full answer stops after that many bytes and keeps the
 * connection open, as a stalled transfer does.
 */
async function fileServer() {
  const state = { content: randomBytes(SIZE), etag: '"v1"', holdAt: undefined as number | undefined, seen: [] as Seen[], bytesSent: 0 };
  const send = (res: ServerResponse, body: Buffer) => {
    state.bytesSent += body.length;
    res.end(body);
  };
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => void> = {
    '/file': (req, res) => {
      const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const ifRange = oneHeader(req, 'if-range');
      const sameEntity = ifRange === undefined || ifRange === state.etag;
      const headers = { etag: state.etag, 'accept-ranges': 'bytes' };
      if (range && sameEntity) {
        const start = Number(range[1]);
        if (start >= state.content.length) return void res.writeHead(416, { 'content-range': `bytes */${state.content.length}` }).end();
        res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${state.content.length - 1}/${state.content.length}`, 'content-length': state.content.length - start });
        return send(res, state.content.subarray(start));
      }
      res.writeHead(200, { ...headers, 'content-length': state.content.length });
      if (state.holdAt === undefined) return send(res, state.content);
      state.bytesSent += state.holdAt;
      res.write(state.content.subarray(0, state.holdAt));
    },
    '/whole': (_req, res) => {
      res.writeHead(200, { 'content-length': state.content.length });
      send(res, state.content);
    },
    '/missing': (_req, res) => void res.writeHead(404, 'Not Found').end('no such dump'),
    '/busy': (_req, res) => void res.writeHead(503, 'Service Unavailable').end(),
    '/to': (_req, res, url) => void res.writeHead(302, { location: url.searchParams.get('location') ?? '/' }).end(),
    '/liar': (_req, res) => {
      // No Content-Length: chunks until the client hangs up.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const more = () => {
        while (!res.destroyed && res.write(state.content.subarray(0, 64 * 1024))) state.bytesSent += 64 * 1024;
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    },
    '/stall': (_req, res) => {
      res.writeHead(200, { 'content-length': state.content.length });
      res.write(state.content.subarray(0, 1000));
    },
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const { range, authorization, host } = req.headers;
    state.seen.push({ path: url.pathname, range, ifRange: oneHeader(req, 'if-range'), authorization, host });
    const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
    if (chain) return void res.writeHead(302, { location: Number(chain[1]) === 0 ? '/file' : `/chain/${Number(chain[1]) - 1}` }).end();
    (routes[url.pathname] ?? routes['/missing']!)(req, res, url);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTeardown(async () => {
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as AddressInfo).port;
  return { state, port, url: (path: string) => `http://127.0.0.1:${port}${path}`, fullGets: () => state.seen.filter((seen) => seen.path === '/file' && !seen.range).length };
}

function oneHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function logLines(): { log: (line: string) => void; lines: string[] } {
  const lines: string[] = [];
  return { log: (line) => void lines.push(line), lines };
}

async function failure(promise: Promise<unknown>): Promise<DownloadError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(DownloadError);
    return error as DownloadError;
  }
  throw new Error('expected a DownloadError');
}

describe('downloading a migration input (pull_url)', () => {
  let server: Awaited<ReturnType<typeof fileServer>>;
  let dir: string;
  let n = 0;
  let toFile: string;
  const download = (url: string, more: Partial<DownloadInputOptions> = {}) =>
    downloadInput({ url, toFile, allow: ['127.0.0.1'], maxBytes: 10 * SIZE, signal: new AbortController().signal, ...more });

  before(async () => {
    server = await fileServer();
    dir = runDir('migration-fetch');
  });
  beforeEach(() => {
    server.state.seen = [];
    server.state.bytesSent = 0;
    server.state.holdAt = undefined;
    toFile = join(dir, `input-${(n += 1)}.zip`);
  });

  it('downloads the whole file aside, renames it, and gives its size and sha256', async () => {
    const { log, lines } = logLines();
    const result = await download(server.url('/file'), { log });
    expect(result).to.deep.equal({ file: toFile, bytes: SIZE, sha256: sha256(server.state.content), resumedFrom: 0 });
    expect(await readFile(toFile)).to.deep.equal(server.state.content);
    expect(existsSync(`${toFile}.part`) || existsSync(`${toFile}.part.json`)).to.equal(false);
    expect(lines[0]).to.equal(`downloading ${server.url('/file')}`);
    expect(lines.at(-1)).to.equal(`downloaded 1 MiB (${SIZE} bytes), sha256 ${result.sha256}`);
  });

  it('keeps the part file when aborted, and resumes it with one Range request', async () => {
    server.state.holdAt = SIZE / 2;
    const controller = new AbortController();
    const first = download(server.url('/file'), { signal: controller.signal });
    await waitUntil(async () => (await stat(`${toFile}.part`).catch(() => undefined))?.size === SIZE / 2, 'half the file in the part file');
    const abortedAt = Date.now();
    controller.abort();
    const error = await first.then(() => undefined, (reason: Error) => reason);
    expect(error?.name).to.equal('AbortError');
    expect(Date.now() - abortedAt).to.be.below(1000);
    expect((await stat(`${toFile}.part`)).size).to.equal(SIZE / 2);

    server.state.holdAt = undefined;
    const { log, lines } = logLines();
    const result = await download(server.url('/file'), { log });
    expect(result).to.deep.equal({ file: toFile, bytes: SIZE, sha256: sha256(server.state.content), resumedFrom: SIZE / 2 });
    expect(await readFile(toFile)).to.deep.equal(server.state.content);
    expect(server.state.seen.map((seen) => [seen.range, seen.ifRange])).to.deep.equal([
      [undefined, undefined],
      [`bytes=${SIZE / 2}-`, '"v1"'],
    ]);
    expect(server.fullGets()).to.equal(1);
    expect(server.state.bytesSent).to.equal(SIZE);
    expect(lines[0]).to.equal(`resuming ${server.url('/file')} at 512 KiB`);
  });

  it('starts over cleanly when the server answers 200 to the Range request', async () => {
    await writeFile(`${toFile}.part`, randomBytes(300 * 1024));
    const { log, lines } = logLines();
    const result = await download(server.url('/whole'), { log });
    expect(server.state.seen[0]?.range).to.equal(`bytes=${300 * 1024}-`);
    expect(result).to.deep.equal({ file: toFile, bytes: SIZE, sha256: sha256(server.state.content), resumedFrom: 0 });
    expect(await readFile(toFile)).to.deep.equal(server.state.content);
    expect(lines).to.include('the server sent the whole file (200) instead of the rest (206): starting again from zero');
  });

  it('starts over when the file changed since the part was written (If-Range)', async () => {
    server.state.holdAt = 1000;
    const controller = new AbortController();
    const first = download(server.url('/file'), { signal: controller.signal });
    await waitUntil(async () => (await stat(`${toFile}.part`).catch(() => undefined))?.size === 1000, 'the first bytes in the part file');
    controller.abort();
    await first.catch(() => undefined);
    const old = server.state.content;
    Object.assign(server.state, { content: randomBytes(SIZE), etag: '"v2"', holdAt: undefined });
    try {
      const result = await download(server.url('/file'));
      expect(server.state.seen.at(-1)?.ifRange).to.equal('"v1"');
      expect(result.sha256).to.equal(sha256(server.state.content));
      expect(result.resumedFrom).to.equal(0);
    } finally {
      Object.assign(server.state, { content: old, etag: '"v1"' });
    }
  });

  it('finishes a part file that already holds the whole file (416 to its Range)', async () => {
    await writeFile(`${toFile}.part`, server.state.content);
    const result = await download(server.url('/file'));
    expect(result).to.deep.equal({ file: toFile, bytes: SIZE, sha256: sha256(server.state.content), resumedFrom: SIZE });
    expect(server.state.bytesSent).to.equal(0);
  });

  it('follows up to five redirects, and refuses a sixth', async () => {
    expect((await download(server.url('/chain/4'))).bytes).to.equal(SIZE);
    server.state.seen = [];
    const error = await failure(download(server.url('/chain/5')));
    expect(error.kind).to.equal('redirects');
    expect(error.message).to.equal(`more than 5 redirects (the last one to ${server.url('/file')}); the download stops there`);
    expect(server.state.seen.map((seen) => seen.path)).to.not.include('/file');
  });

  for (const [location, why] of [
    ['http://10.0.0.5/dump.zip', /redirected to http:\/\/10\.0\.0\.5\/dump\.zip: downloads may not reach 10\.0\.0\.5: it is a private address/],
    ['http://169.254.169.254/latest/meta-data/', /it is a cloud metadata address/],
    ['http://localhost:1/file', /downloads may not reach localhost: it is this machine/],
    ['file:///etc/passwd', /not file:\/\//],
    ['http://files.test/dump.zip', /downloads may not reach files\.test: it resolves to a private address; an operator can allow it with FORJA_PULL_ALLOW_HOSTS/],
  ] as const) {
    it(`refuses a redirect to ${location} (not allowed) before connecting`, async () => {
      const lookups: string[] = [];
      const lookup: HostLookup = async (host) => (lookups.push(host), host === 'files.test' ? ['192.168.1.10'] : []);
      const error = await failure(download(server.url(`/to?location=${encodeURIComponent(location)}`), { lookup, allow: ['127.0.0.1', '169.254.0.0/16'] }));
      expect(error.kind).to.equal('refused');
      expect(error.retryable).to.equal(false);
      expect(error.message).to.match(why);
      expect(lookups).to.deep.equal(location.includes('files.test') ? ['files.test'] : []);
    });
  }

  it('refuses file:, ftp: and gopher: URLs without a request', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/dump.zip', `gopher://127.0.0.1:${server.port}/_GET`]) {
      const error = await failure(download(url));
      expect(error.kind, url).to.equal('refused');
    }
    expect(server.state.seen).to.deep.equal([]);
  });

  it('refuses this machine when it is not listed', async () => {
    const error = await failure(download(server.url('/file'), { allow: [] }));
    expect(error.message).to.equal('downloads may not reach 127.0.0.1: it is a loopback address (this machine); an operator can allow it with FORJA_PULL_ALLOW_HOSTS');
    expect(server.state.seen).to.deep.equal([]);
  });

  it('refuses a file over the cap by its Content-Length, and by its Content-Range on a resume, deleting the part file', async () => {
    let error = await failure(download(server.url('/file'), { maxBytes: SIZE - 1 }));
    expect(error.kind).to.equal('too_large');
    expect(error.message).to.equal(`${server.url('/file')} is 1 MiB (${SIZE} bytes), over the 1024 KiB a download may take (FORJA_PULL_MAX_BYTES); the partial file is deleted`);
    expect(existsSync(`${toFile}.part`)).to.equal(false);

    await writeFile(`${toFile}.part`, server.state.content.subarray(0, 1000));
    error = await failure(download(server.url('/file'), { maxBytes: SIZE - 1 }));
    expect(server.state.seen.at(-1)?.range).to.equal('bytes=1000-');
    expect(error.kind).to.equal('too_large');
    expect(existsSync(`${toFile}.part`)).to.equal(false);
  });

  it('stops a server that streams past the cap without saying its size, deleting the part file', async () => {
    const error = await failure(download(server.url('/liar'), { maxBytes: 200 * 1024 }));
    expect(error.kind).to.equal('too_large');
    expect(error.message).to.equal(`${server.url('/liar')} sent more than 200 KiB, over the 200 KiB a download may take (FORJA_PULL_MAX_BYTES); the partial file is deleted`);
    expect(existsSync(`${toFile}.part`)).to.equal(false);
    expect(existsSync(toFile)).to.equal(false);
  });

  it('names the status of an http error, and says which ones may pass', async () => {
    const notFound = await failure(download(server.url('/missing')));
    expect([notFound.kind, notFound.status, notFound.retryable]).to.deep.equal(['http', 404, false]);
    expect(notFound.message).to.equal(`the server answered 404 Not Found for ${server.url('/missing')}`);
    const busy = await failure(download(server.url('/busy')));
    expect([busy.status, busy.retryable]).to.deep.equal([503, true]);
  });

  it('drops a stalled connection, keeping the part file for a resume', async () => {
    const error = await failure(download(server.url('/stall'), { idleTimeoutMs: 200 }));
    expect([error.kind, error.retryable]).to.deep.equal(['network', true]);
    expect(error.message).to.match(/broke off after 1000 bytes \(no data for 200 ms\); the partial file is kept for a resume$/);
    expect((await stat(`${toFile}.part`)).size).to.equal(1000);
  });

  it('sends the credentials in the URL to their origin only, and never shows them', async () => {
    const other = await fileServer();
    const secretUrl = (path: string) => `http://alice:s3cr3t-pw@127.0.0.1:${server.port}${path}`;
    const { log, lines } = logLines();
    const error = await failure(download(`${secretUrl('/missing')}?token=tok-SECRET-1&name=dump.zip`, { log }));
    expect(error.message).to.equal(`the server answered 404 Not Found for http://127.0.0.1:${server.port}/missing?token=***&name=dump.zip`);
    expect(server.state.seen[0]?.authorization).to.equal(`Basic ${Buffer.from('alice:s3cr3t-pw').toString('base64')}`);

    const hop = `http://bob:hunter22@127.0.0.1:${server.port}/to?location=${encodeURIComponent(other.url('/file'))}`;
    await download(`${secretUrl('/to')}?location=${encodeURIComponent(hop)}`, { log, lookup: async () => [] });
    expect(server.state.seen.slice(1).map((seen) => seen.authorization)).to.deep.equal([
      `Basic ${Buffer.from('alice:s3cr3t-pw').toString('base64')}`,
      `Basic ${Buffer.from('bob:hunter22').toString('base64')}`,
    ]);
    expect(other.state.seen.map((seen) => seen.authorization)).to.deep.equal([undefined]);
    const shown = [error.message, ...lines].join('\n');
    for (const secret of ['alice', 's3cr3t-pw', 'tok-SECRET-1', 'bob', 'hunter22']) expect(shown).to.not.include(secret);
    expect(lines).to.include(`redirected (302) to http://***@127.0.0.1:${server.port}/to?location=${encodeURIComponent(other.url("/file"))}`);
  });

  it('resolves a name once per connection and connects to the checked address, not to a second answer', async () => {
    const answers = [['127.0.0.1'], ['10.9.9.9']];
    const lookups: string[] = [];
    const lookup: HostLookup = async (host) => (lookups.push(host), answers[lookups.length - 1] ?? []);
    const result = await download(`http://files.test:${server.port}/file`, { lookup });
    expect(result.sha256).to.equal(sha256(server.state.content));
    expect(lookups).to.deep.equal(['files.test']);
    expect(server.state.seen.map((seen) => seen.host)).to.deep.equal([`files.test:${server.port}`]);
  });

  it('checks each hop of a redirect again with its own lookup', async () => {
    const lookups: string[] = [];
    const lookup: HostLookup = async (host) => (lookups.push(host), lookups.length === 1 ? ['127.0.0.1'] : ['10.9.9.9']);
    const error = await failure(download(`http://files.test:${server.port}/chain/0`, { lookup }));
    expect(lookups).to.deep.equal(['files.test', 'files.test']);
    expect(error.message).to.equal('downloads may not reach files.test: it resolves to a private address; an operator can allow it with FORJA_PULL_ALLOW_HOSTS');
    expect(server.state.seen.map((seen) => seen.path)).to.deep.equal(['/chain/0']);
  });
});
