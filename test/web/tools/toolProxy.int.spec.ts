import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import { listenAsMaildev } from '#test/support/maildev.ts';
import { readBytes } from '#test/support/rawUpgrade.ts';
import { openTool, toolFetch, toolUpgrade, type ToolSession } from '#test/support/toolSession.ts';
import { findUserByEmail } from '#projections/users/users.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { toolSigningKey, toolTokens } from '#web/tools/origin/toolTokens.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, textOf, type WebSession } from '#test/support/webSession.ts';

const BIG = randomBytes(24 * 1024 * 1024);
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * A stand-in tool where web looks for the mail catcher: a unix socket under the data folder, owned
 * by maildev's account. Tells what it received in headers, sends BIG at /mails/big, echoes WebSocket bytes.
 */
function startEchoTool(dataDir: string): Promise<Server> {
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
  return listenAsMaildev(server, dataDir);
}

describe('tool proxies (web/tools/toolProxy.ts) through the running web\'s tools origin', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let tool: Server;
  let cookie: string;
  let mail: ToolSession;
  let admin: WebSession;

  before(async () => {
    platform = await startWebPlatform();
    tool = await startEchoTool(platform.config.FORJA_DATA_DIR);
    // The mail catcher holds every instance's mail: administrators only.
    admin = await platform.signedIn('admin');
    mail = await openTool(admin, '/mails/');
    cookie = `${mail.cookie}; tool_session=kept`;
  });
  after(async () => {
    await platform?.stop();
    tool?.closeAllConnections();
    tool?.close();
  });

  /** A request on the mail host with its cookie and own Origin, answered as fetch answers. */
  const send = async (path: string, init: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {}) => {
    return toolFetch(`${mail.origin}${path}`, { ...init, headers: { cookie, origin: mail.origin, ...init.headers } });
  };

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
    const answer = await toolUpgrade(`${mail.origin}/mails/socket?x=1`, { cookie, origin: mail.origin });
    expect(answer.status).to.equal(101);
    answer.socket!.write('ping through the proxy');
    expect((await readBytes(answer.socket!, 22)).toString()).to.equal('ping through the proxy');
    answer.socket!.destroy();
  });

  it('refuses a WebSocket without a tool cookie (401), with a forged one (401) and outside any tool (404)', async () => {
    const origin = mail.origin;
    expect((await toolUpgrade(`${origin}/mails/socket`, { origin })).status).to.equal(401);
    expect((await toolUpgrade(`${origin}/mails/socket`, { origin, cookie: 'forja.tool=e30.not-signed' })).status).to.equal(401);
    expect((await toolUpgrade(`${origin}/projects`, { origin, cookie })).status).to.equal(404);
  });

  it('refuses a write or a WebSocket from another origin: an ERP page of the same site, web, a sibling tool (issue 24, finding 7)', async () => {
    const monitoring = await openTool(admin, '/monitoring/');
    const foreign: Record<string, string>[] = [
      { origin: 'http://acme.localhost:8083' },
      { origin: platform.web },
      { origin: monitoring.origin },
      { origin: mail.origin, 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of foreign) {
      const write = await send('/mails/email/all', { method: 'DELETE', headers });
      expect(write.status, JSON.stringify(headers)).to.equal(403);
      expect(write.headers.get('x-seen-method'), 'the tool is not asked').to.equal(null);
      expect((await toolUpgrade(`${mail.origin}/mails/socket`, { cookie, ...headers })).status, JSON.stringify(headers)).to.equal(403);
      // To monitoring, the mail host is the sibling.
      const toMonitoring = headers['origin'] === monitoring.origin ? { ...headers, origin: mail.origin } : headers;
      expect((await toolUpgrade(`${monitoring.origin}/monitoring/socket`, { cookie: monitoring.cookie, ...toMonitoring })).status, JSON.stringify(toMonitoring)).to.equal(403);
    }
    expect((await send('/mails/email/all', { method: 'DELETE', headers: { origin: mail.origin, 'sec-fetch-site': 'same-origin' } })).status).to.equal(200);
    const ws = await toolUpgrade(`${mail.origin}/mails/socket`, { cookie, origin: mail.origin });
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
    const tokens = toolTokens(toolSigningKey(resolvePlatformSecrets(platform.config).masterKey));
    const readModel = platform.infra.db.withSchema('read_model');
    for (const role of ['viewer', 'developer'] as const) {
      const session = await platform.signedIn(role);
      expect((await session.get('/mails/')).status, role).to.equal(403);
      // A tool cookie made for them (web mints none) is refused on the mail host all the same.
      const user = (await findUserByEmail(readModel, USERS[role]))!;
      const forged = `forja.tool=${tokens.cookie({ user: user.user_id, kind: 'mail', slug: null, host: new URL(mail.origin).hostname })}`;
      expect((await toolFetch(`${mail.origin}/mails/`, { headers: { cookie: forged } })).status, role).to.equal(303);
      expect((await toolUpgrade(`${mail.origin}/mails/socket`, { cookie: forged, origin: mail.origin })).status, role).to.equal(401);
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

  it('sends an htmx request (a boosted link, a sign-in redirect) to load the tool on its own origin', async () => {
    const res = await fetch(`${platform.web}/mails/inbox?x=1`, { headers: { cookie: `${SESSION_COOKIE}=${admin.cookie}`, 'hx-request': 'true' }, redirect: 'manual' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('hx-redirect')).to.match(/^http:\/\/mail\.tools\.localhost:\d+\/\.forja\/enter\?token=.*&to=%2Fmails%2Finbox%3Fx%3D1$/);
    expect(res.headers.get('x-seen-method'), 'the tool is not asked').to.equal(null);
  });

  it('answers web\'s 502 page naming the tool when the tool is down', async () => {
    tool.closeAllConnections();
    await new Promise((resolve) => tool.close(resolve));
    const res = await send('/mails/');
    expect(res.status).to.equal(502);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(textOf(await res.text())).to.include('The mail catcher is not running or does not answer at the moment.');
    const ws = await toolUpgrade(`${mail.origin}/mails/socket`, { cookie, origin: mail.origin }).catch((error: Error) => error);
    expect(ws, 'a WebSocket to a tool that is down is cut').to.be.instanceOf(Error);
  });
});
