import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { findUserByEmail } from '#projections/users/users.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { toolSigningKey, toolTokens } from '#web/tools/origin/toolTokens.ts';
import { listenAsMaildev } from '#test/support/maildev.ts';
import { upgradeRequest } from '#test/support/rawUpgrade.ts';
import { openTool, toolEntry, toolRequest, toolUpgrade } from '#test/support/toolSession.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE } from '#test/support/webSession.ts';

/** A stand-in mail catcher or Prometheus: tells what it received, answers WebSockets with 101. */
function echoTool(): Server {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('x-seen-cookie', req.headers.cookie ?? '(none)');
      res.setHeader('x-seen-authorization', req.headers.authorization ?? '(none)');
      res.setHeader('content-security-policy', "script-src *");
      res.end('tool page');
    });
  });
  server.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'));
  return server;
}

describe('the tools origin (web/tools/origin): sign-in by one-time token, own cookie, own origin', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  const tools: Server[] = [];

  before(async () => {
    const prometheus = echoTool();
    tools.push(prometheus);
    await new Promise<void>((resolve) => prometheus.listen(0, '127.0.0.1', resolve));
    platform = await startWebPlatform({}, [], { FORJA_MONITORING_PORT: String((prometheus.address() as AddressInfo).port) });
    tools.push(await listenAsMaildev(echoTool(), platform.config.FORJA_DATA_DIR));
  });
  after(async () => {
    await platform?.stop();
    for (const tool of tools) {
      tool.closeAllConnections();
      tool.close();
    }
  });

  it('sends web\'s tool path to the tool\'s own host with a token, which sets a host-only cookie and lands on the path', async () => {
    const admin = await platform.signedIn('admin');
    const entry = await toolEntry(admin, '/mails/inbox?x=1');
    expect(entry).to.match(/^http:\/\/mail\.tools\.localhost:\d+\/\.forja\/enter\?token=[\w-]+\.[\w-]+&to=%2Fmails%2Finbox%3Fx%3D1$/);
    const enter = await toolRequest(entry);
    expect(enter.status).to.equal(303);
    expect(enter.location).to.equal('/mails/inbox?x=1');
    const cookie = ([] as string[]).concat(enter.headers['set-cookie'] ?? [])[0] ?? '';
    expect(cookie).to.match(/^forja\.tool=/);
    expect(cookie).to.match(/; HttpOnly/).and.match(/; SameSite=Lax/).and.match(/; Path=\//).and.not.match(/domain=/i);
    const page = await toolRequest(`${new URL(entry).origin}/mails/inbox?x=1`, { headers: { cookie: `${cookie.split(';', 1)[0]}; ${SESSION_COOKIE}=x; other=kept` } });
    expect(page.status).to.equal(200);
    expect(page.headers['x-seen-cookie'], 'neither Forja cookie reaches the tool').to.equal('other=kept');
    expect(String(page.headers['content-security-policy']), 'the tool\'s own policy stays').to.equal('script-src *');
    const monitoring = await openTool(admin, '/monitoring/');
    expect((await monitoring.get('/monitoring/graph')).headers['x-seen-authorization'], 'web adds the monitoring secret').to.match(/^Basic /);
  });

  it('spends a token once, only on its own host, and never redirects off the host', async () => {
    const admin = await platform.signedIn('admin');
    const entry = await toolEntry(admin, '/mails/');
    const other = entry.replace('//mail.', '//monitoring.').replace('to=%2Fmails%2F', 'to=%2Fmonitoring%2F');
    expect((await toolRequest(other)).status, 'another host').to.equal(403);
    expect((await toolRequest(entry.replace('to=%2Fmails%2F', 'to=%2F%2Fevil.example%2F'))).status, '//host').to.equal(400);
    expect((await toolRequest(entry.replace('to=%2Fmails%2F', 'to=%2F%5Cevil.example'))).status, '/\\host').to.equal(400);
    expect((await toolRequest(entry.replace('to=%2Fmails%2F', 'to=https%3A%2F%2Fevil.example%2F'))).status, 'absolute').to.equal(400);
    expect((await toolRequest(entry)).status, 'first use').to.equal(303);
    expect((await toolRequest(entry)).status, 'second use').to.equal(403);
  });

  it('does not take web\'s session cookie: without its own cookie a tool page sends back to web', async () => {
    const admin = await platform.signedIn('admin');
    const mail = await openTool(admin, '/mails/');
    const page = await toolRequest(`${mail.origin}/mails/`, { headers: { cookie: `${SESSION_COOKIE}=${admin.cookie}` } });
    expect(page.status).to.equal(303);
    expect(page.location).to.equal(`${platform.web}/mails/`);
    expect((await toolRequest(`${mail.origin}/mails/x`, { method: 'POST', headers: { origin: mail.origin } })).status).to.equal(401);
    const monitoring = await toolRequest(`${mail.origin.replace('//mail.', '//monitoring.')}/monitoring/`, { headers: { cookie: mail.cookie } });
    expect(monitoring.status, 'a cookie is good for its host only').to.equal(303);
  });

  it('takes writes only with its own Origin (a sibling tool is same-site, not same-origin)', async () => {
    const mail = await openTool(await platform.signedIn('admin'), '/mails/');
    const post = (headers: Record<string, string>) => toolRequest(`${mail.origin}/mails/email/all`, { method: 'DELETE', headers: { cookie: mail.cookie, ...headers } });
    expect((await post({})).status, 'no Origin').to.equal(403);
    expect((await post({ origin: mail.origin.replace('//mail.', '//code-acme.') })).status, 'sibling tool').to.equal(403);
    expect((await post({ origin: platform.web })).status, 'web').to.equal(403);
    expect((await post({ 'sec-fetch-site': 'same-site' })).status, 'same-site').to.equal(403);
    expect((await post({ origin: mail.origin })).status, 'own origin').to.equal(200);
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status, 'same-origin').to.equal(200);
  });

  for (const path of ['/mails/socket.io/?EIO=4&transport=websocket', '/monitoring/socket']) {
    it(`upgrades a WebSocket to ${path.split('/')[1]} only with its own Origin and cookie; web's origin upgrades no tool`, async () => {
      const session = await openTool(await platform.signedIn('admin'), `/${path.split('/')[1]}/`);
      const url = `${session.origin}${path}`;
      expect((await toolUpgrade(url, { cookie: session.cookie })).status, 'no Origin').to.equal(403);
      expect((await toolUpgrade(url, { cookie: session.cookie, origin: 'http://acme.localhost:8083' })).status, 'an ERP page').to.equal(403);
      expect((await toolUpgrade(url, { cookie: session.cookie, origin: session.origin.replace(/\/\/\w+\./, '//code-acme.') })).status, 'sibling tool').to.equal(403);
      expect((await toolUpgrade(url, { origin: session.origin })).status, 'no cookie').to.equal(401);
      const ok = await toolUpgrade(url, { cookie: session.cookie, origin: session.origin });
      expect(ok.status).to.equal(101);
      ok.socket?.destroy();
      const viewer = await platform.signedIn('viewer');
      expect((await upgradeRequest(`${platform.web}${path}`, { cookie: `${SESSION_COOKIE}=${viewer.cookie}`, origin: platform.web })).status, 'web').to.equal(404);
    });
  }

  it('upgrades no tool WebSocket on web\'s origin, whatever its Origin (an ERP page\'s, web\'s)', async () => {
    const viewer = await platform.signedIn('viewer');
    for (const origin of ['http://acme.localhost:8083', platform.web]) {
      for (const path of ['/mails/socket.io/?EIO=4&transport=websocket', '/monitoring/socket']) {
        const answer = await upgradeRequest(`${platform.web}${path}`, { cookie: `${SESSION_COOKIE}=${viewer.cookie}`, origin });
        answer.socket?.destroy();
        expect(answer.status, `${path} from ${origin}`).to.equal(404);
      }
    }
  });

  it('answers web\'s old tool paths with 404 for anything but the GET that opens the tool', async () => {
    const admin = await platform.signedIn('admin');
    const res = await fetch(`${platform.web}/mails/email/all`, { method: 'DELETE', headers: { cookie: `${SESSION_COOKIE}=${admin.cookie}` }, redirect: 'manual' });
    expect(res.status).to.equal(404);
  });

  it('refuses a signed cookie of a deactivated user, and a viewer\'s cookie for the database admin', async () => {
    const tokens = toolTokens(toolSigningKey(resolvePlatformSecrets(platform.config).masterKey));
    const readModel = platform.infra.db.withSchema('read_model');
    const gone = (await findUserByEmail(readModel, USERS.deactivated))!;
    const mail = await openTool(await platform.signedIn('admin'), '/mails/');
    const host = new URL(mail.origin).hostname;
    const forged = tokens.cookie({ user: gone.user_id, kind: 'mail', slug: null, host });
    expect((await toolRequest(`${mail.origin}/mails/`, { headers: { cookie: `forja.tool=${forged}` } })).status).to.equal(303);
    const viewer = (await findUserByEmail(readModel, USERS.viewer))!;
    const dbHost = host.replace(/^mail\./, 'dbadmin-acme.');
    const viewerDb = tokens.cookie({ user: viewer.user_id, kind: 'dbadmin', slug: 'acme', host: dbHost });
    expect((await toolRequest(`${mail.origin.replace('//mail.', '//dbadmin-acme.')}/dbadmin/acme/`, { headers: { cookie: `forja.tool=${viewerDb}` } })).status).to.equal(303);
    expect((await (await platform.signedIn('viewer')).get('/dbadmin/acme/')).status, 'web refuses to open it').to.equal(403);
  });
});
