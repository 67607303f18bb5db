import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { chownSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MAIL_CATCHER_OS_USER, mailCatcherSocketPath } from '#shared/local/mailCatcherSocket.ts';
import { ensureSystemUser } from '#shared/local/systemUser.ts';
import { expect } from 'chai';
import { upgradeRequest, readBytes } from '#test/support/rawUpgrade.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, textOf } from '#test/support/webSession.ts';

const BIG = randomBytes(24 * 1024 * 1024);
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * A stand-in tool where web looks for the mail catcher: a unix socket under the data folder, owned
 * by maildev's account. Tells what it received in headers, sends BIG at /mails/big, echoes WebSocket bytes.
 */
function startEchoTool(socketPath: string): Promise<Server> {
  const server = createServer((req, res) => {
    const hash = createHash('sha256');
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    req.on('end', () => {
      res.setHeader('x-seen-method', req.method ?? '');
      res.setHeader('x-seen-url', req.url ?? '');
      res.setHeader('x-seen-cookie', req.headers.cookie ?? '(none)');
      res.setHeader('x-seen-bytes', String(bytes));
      res.setHeader('x-seen-sha256', hash.digest('hex'));
      if (req.url === '/mails/big') return void res.end(BIG);
      res.end(req.method === 'HEAD' ? undefined : 'tool page');
    });
  });
  server.on('upgrade', (req, socket) => {
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Seen-Url: ${req.url}\r\n\r\n`);
    socket.pipe(socket);
  });
  mkdirSync(dirname(socketPath), { recursive: true });
  return new Promise((resolve) =>
    server.listen(socketPath, () => {
      if (process.getuid?.() === 0) {
        const account = ensureSystemUser(MAIL_CATCHER_OS_USER);
        chownSync(socketPath, account.uid, account.gid);
      }
      resolve(server);
    }),
  );
}

describe('tool proxies (web/tools/toolProxy.ts) through the running web', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let tool: Server;
  let cookie: string;

  before(async () => {
    platform = await startWebPlatform();
    tool = await startEchoTool(mailCatcherSocketPath(platform.config.FORJA_DATA_DIR));
    // The mail catcher holds every instance's mail: administrators only.
    const admin = await platform.signedIn('admin');
    cookie = `${SESSION_COOKIE}=${admin.cookie}; tool_session=kept`;
  });
  after(async () => {
    await platform?.stop();
    tool?.closeAllConnections();
    tool?.close();
  });

  const send = (path: string, init: RequestInit = {}) =>
    fetch(`${platform.web}${path}`, { ...init, headers: { cookie, ...(init.headers as Record<string, string>) }, redirect: 'manual', signal: AbortSignal.timeout(30_000) });

  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
    it(`forwards ${method} with the path suffix and query, without Forja's session cookie and without asking for web's CSRF token`, async () => {
      const body = ['GET', 'HEAD'].includes(method) ? undefined : 'a=1&b=2';
      const res = await send('/mails/some/deep/path?x=1', { method, ...(body ? { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}) });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-seen-method')).to.equal(method);
      expect(res.headers.get('x-seen-url')).to.equal('/mails/some/deep/path?x=1');
      expect(res.headers.get('x-seen-cookie')).to.equal('tool_session=kept');
      expect(res.headers.get('x-seen-bytes')).to.equal(String(body?.length ?? 0));
    });
  }

  it('streams a body larger than any of web\'s parser limits both ways, unchanged', async () => {
    const up = await send('/mails/upload', { method: 'PUT', body: BIG, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(up.status).to.equal(200);
    expect(up.headers.get('x-seen-bytes')).to.equal(String(BIG.length));
    expect(up.headers.get('x-seen-sha256')).to.equal(sha(BIG));
    const down = await send('/mails/big');
    const received = Buffer.from(await down.arrayBuffer());
    expect(received.length).to.equal(BIG.length);
    expect(sha(received)).to.equal(sha(BIG));
  });

  it('passes a signed-in user\'s WebSocket through and echoes bytes both ways', async () => {
    const answer = await upgradeRequest(`${platform.web}/mails/socket?x=1`, { cookie });
    expect(answer.status).to.equal(101);
    answer.socket!.write('ping through the proxy');
    expect((await readBytes(answer.socket!, 22)).toString()).to.equal('ping through the proxy');
    answer.socket!.destroy();
  });

  it('refuses a WebSocket without a session (401), with a stale cookie (401) and outside any tool (404)', async () => {
    expect((await upgradeRequest(`${platform.web}/mails/socket`, {})).status).to.equal(401);
    expect((await upgradeRequest(`${platform.web}/mails/socket`, { cookie: `${SESSION_COOKIE}=s%3Anot-a-session.sig` })).status).to.equal(401);
    expect((await upgradeRequest(`${platform.web}/projects`, { cookie })).status).to.equal(404);
  });

  it('refuses a write or a WebSocket from another origin, an ERP page of the same site included (issue 24, finding 7)', async () => {
    const foreign: Record<string, string>[] = [{ origin: 'http://acme.localhost:8083' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }];
    for (const headers of foreign) {
      const write = await send('/mails/email/all', { method: 'DELETE', headers });
      expect(write.status, JSON.stringify(headers)).to.equal(403);
      expect(write.headers.get('x-seen-method'), 'the tool is not asked').to.equal(null);
      expect((await upgradeRequest(`${platform.web}/mails/socket`, { cookie, ...headers })).status, JSON.stringify(headers)).to.equal(403);
      expect((await upgradeRequest(`${platform.web}/monitoring/socket`, { cookie, ...headers })).status, JSON.stringify(headers)).to.equal(403);
    }
    const own = new URL(platform.web).host;
    expect((await send('/mails/email/all', { method: 'DELETE', headers: { origin: `http://${own}`, 'sec-fetch-site': 'same-origin' } })).status).to.equal(200);
    const ws = await upgradeRequest(`${platform.web}/mails/socket`, { cookie, origin: `http://${own}` });
    expect(ws.status).to.equal(101);
    ws.socket!.destroy();
  });

  it('serves what a sender wrote (a message\'s HTML, attachments, raw messages) sandboxed, attachments as downloads nothing executes (issue 24, finding 3)', async () => {
    const html = await send('/mails/email/abc/html');
    expect(html.headers.get('content-security-policy')).to.match(/^sandbox; default-src 'none'/);
    expect(html.headers.get('x-content-type-options')).to.equal('nosniff');
    for (const path of ['/mails/email/abc/attachment/payload.js', '/mails/email/abc/attachment/invoice.html?x=1', '/mails/email/abc/download', '/mails/email/abc/source']) {
      const res = await send(path);
      expect(res.headers.get('content-type'), path).to.equal('application/octet-stream');
      expect(res.headers.get('content-disposition'), path).to.equal('attachment');
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('content-security-policy'), path).to.match(/^sandbox/);
    }
    expect((await send('/mails/email')).headers.get('content-security-policy'), 'maildev\'s own pages keep the tool policy').to.match(/^default-src 'self'/);
  });

  it('opens the mail catcher to administrators only (each instance\'s mail is on its own page)', async () => {
    for (const role of ['viewer', 'developer'] as const) {
      const session = await platform.signedIn(role);
      expect((await session.get('/mails/')).status, role).to.equal(403);
      expect((await upgradeRequest(`${platform.web}/mails/socket`, { cookie: `${SESSION_COOKIE}=${session.cookie}` })).status, role).to.equal(403);
    }
  });

  it('sends an anonymous visitor to sign in, and answers htmx with 401 and HX-Redirect', async () => {
    const res = await fetch(`${platform.web}/mails/x?y=1`, { redirect: 'manual' });
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal(`/login?next=${encodeURIComponent('/mails/x?y=1')}`);
    const htmx = await fetch(`${platform.web}/mails/x`, { method: 'POST', redirect: 'manual', headers: { 'hx-request': 'true' } });
    expect(htmx.status).to.equal(401);
    expect(htmx.headers.get('hx-redirect')).to.equal(`/login?next=${encodeURIComponent('/mails/x')}`);
  });

  it('sends an htmx request (a boosted link, a sign-in redirect) to load the tool as a page of its own', async () => {
    const res = await send('/mails/inbox?x=1', { headers: { 'hx-request': 'true' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('hx-redirect')).to.equal('/mails/inbox?x=1');
    expect(res.headers.get('x-seen-method'), 'the tool is not asked').to.equal(null);
  });

  it('answers web\'s 502 page naming the tool when the tool is down', async () => {
    tool.closeAllConnections();
    await new Promise((resolve) => tool.close(resolve));
    const res = await send('/mails/');
    expect(res.status).to.equal(502);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(textOf(await res.text())).to.include('The mail catcher is not running or does not answer at the moment.');
    const ws = await upgradeRequest(`${platform.web}/mails/socket`, { cookie }).catch((error: Error) => error);
    expect(ws, 'a WebSocket to a tool that is down is cut').to.be.instanceOf(Error);
  });
});
