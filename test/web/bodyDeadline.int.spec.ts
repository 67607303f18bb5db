import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { ConfigError } from '#shared/config/config.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { loadWebSettings } from '#web/web.settings.ts';
import { SESSION_COOKIE, type WebSession } from '#test/support/webSession.ts';

const DEADLINE_S = 1;
/** How long a test waits for the server to hang up before calling the connection still open. */
const GIVE_UP_MS = 8_000;

interface Exchange {
  socket: Socket;
  /** Resolves when the server closes the connection (or GIVE_UP_MS passes): what it sent and when. */
  outcome: Promise<{ closedAfterMs: number | null; answer: string }>;
}

/** Opens a raw connection to web and sends `bytes` of a request, leaving the rest unsent. */
function startRequest(base: string, bytes: string | Buffer): Exchange {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  const started = Date.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  socket.write(bytes);
  const outcome = new Promise<{ closedAfterMs: number | null; answer: string }>((resolve) => {
    const giveUp = setTimeout(() => {
      resolve({ closedAfterMs: null, answer: Buffer.concat(chunks).toString() });
      socket.destroy();
    }, GIVE_UP_MS);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ closedAfterMs: Date.now() - started, answer: Buffer.concat(chunks).toString() });
    });
  });
  return { socket, outcome };
}

const head = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;

describe('web: slow request bodies (issue 10, item 11)', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let developer: WebSession;

  before(async () => {
    platform = await startWebPlatform({ FORJA_BODY_TIMEOUT_S: String(DEADLINE_S) });
    developer = await platform.signedIn('developer');
  });
  after(() => platform?.stop());

  it('answers 408 and closes a form body that stalls, within FORJA_BODY_TIMEOUT_S', async () => {
    const body = 'email=someone%40example.com&password=';
    const { outcome } = startRequest(platform.web, `${head('POST', '/login', { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': '1000' })}${body}`);
    const { closedAfterMs, answer } = await outcome;
    expect(closedAfterMs, 'the connection is still open').to.not.equal(null);
    expect(closedAfterMs).to.be.within(DEADLINE_S * 1000 - 100, DEADLINE_S * 1000 + 3_000);
    expect(answer).to.match(/^HTTP\/1\.1 408 /).and.include(`The request body did not arrive within ${DEADLINE_S} s.`);
    expect((await fetch(`${platform.web}/health`)).status).to.equal(200);
  });

  it('closes a stalled body on the upload route too, when the sender may not upload', async () => {
    const { outcome } = startRequest(platform.web, `${head('POST', '/instances/upload', { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': '100000' })}--x\r\n`);
    const { closedAfterMs, answer } = await outcome;
    expect(closedAfterMs, 'the connection is still open').to.not.equal(null);
    expect(closedAfterMs).to.be.below(DEADLINE_S * 1000 + 3_000);
    expect(answer).to.match(/^HTTP\/1\.1 303 /);
  });

  it('lets a developer’s upload take longer than the deadline', async () => {
    const boundary = 'forja-slow-upload';
    const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const first = `${field('_csrf', await developer.csrfToken())}${field('name', 'Slow')}${field('project', 'Slow Uploads')}${field('erp_version', '17.0')}`;
    const rest = `--${boundary}\r\nContent-Disposition: form-data; name="dump"; filename="a.sql"\r\n\r\nSELECT 1;\n\r\n--${boundary}--\r\n`;
    const headers = {
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(Buffer.byteLength(first) + Buffer.byteLength(rest)),
      Cookie: `${SESSION_COOKIE}=${developer.cookie}`,
      Connection: 'close',
    };
    const { socket, outcome } = startRequest(platform.web, `${head('POST', '/instances/upload', headers)}${first}`);
    await new Promise((resolve) => setTimeout(resolve, DEADLINE_S * 1000 + 1_500));
    expect(socket.destroyed, 'the server cut the upload off').to.equal(false);
    socket.write(rest);
    const { answer } = await outcome;
    expect(answer).to.match(/^HTTP\/1\.1 303 /).and.match(/\r\nLocation: \/instances\/slow-uploads-slow\r\n/i);
  });

  it('takes FORJA_BODY_TIMEOUT_S from 1 to 3600 seconds, 30 by default, and names it when wrong', () => {
    expect(loadWebSettings({}).FORJA_BODY_TIMEOUT_S).to.equal(30);
    expect(loadWebSettings({ FORJA_BODY_TIMEOUT_S: '5' }).FORJA_BODY_TIMEOUT_S).to.equal(5);
    for (const wrong of ['0', '3601', 'soon', '1.5']) {
      expect(() => loadWebSettings({ FORJA_BODY_TIMEOUT_S: wrong }), wrong).to.throw(ConfigError, /^configuration: FORJA_BODY_TIMEOUT_S /);
    }
  });

  it('leaves a request without a body, such as a page being read, alone', async () => {
    const res = await developer.get('/projects');
    expect(res.status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, DEADLINE_S * 1000 + 200));
    expect((await developer.get('/projects')).status).to.equal(200);
  });
});
