import { expect } from 'chai';
import { SESSION_COOKIE, textOf, type WebSession } from '#test/support/webSession.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';

/**
 * Requests the fuzz suite (test/fuzz) found answered with a 500 page, or with an error thrown
 * where nothing caught it, each shrunk to the smallest request that did it.
 */
describe('web: requests the fuzzer found answered 500', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let developer: WebSession;
  let csrf: string;

  before(async () => {
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
    csrf = await developer.csrfToken();
    expect((await developer.post('/projects', { name: 'Found Target' })).location).to.equal('/projects/found-target');
  });
  after(() => platform?.stop());

  /** A request in the developer's session, its body and headers exactly as given. */
  async function send(method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string> } = {}) {
    const res = await fetch(`${platform.web}${path}`, {
      method,
      redirect: 'manual',
      headers: { cookie: `${SESSION_COOKIE}=${developer.cookie}`, ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    return { status: res.status, text: textOf(await res.text()) };
  }

  it('a path parameter with malformed percent-encoding is a 400 page', async () => {
    for (const [method, path] of [['GET', '/projects/%'], ['GET', '/instances/%/logs'], ['GET', '/instances/%/logs/stream'], ['POST', '/projects/%/webhook/rotate']] as const) {
      const res = await send(method, path, method === 'POST' ? { headers: { 'x-csrf-token': csrf } } : {});
      expect(res.status, path).to.equal(400);
      expect(res.text, path).to.include('What you sent could not be read.');
    }
  });

  it('a form in a charset the parser does not know is a 415 page', async () => {
    for (const charset of ['bogus', 'utf-16']) {
      const res = await send('POST', '/projects', { body: `_csrf=${encodeURIComponent(csrf)}&name=a`, headers: { 'content-type': `application/x-www-form-urlencoded; charset=${charset}` } });
      expect(res.status, charset).to.equal(415);
    }
  });

  it('a POST without a form body (the token in the header) reaches the handler, which refuses the empty name', async () => {
    const res = await send('POST', '/projects', { headers: { 'x-csrf-token': csrf } });
    expect(res.status).to.equal(422);
  });

  it('a NUL in a slug is no page, and in a query or a re-rendered form field names nothing', async () => {
    expect((await send('GET', '/instances/%00')).status).to.equal(404);
    expect((await send('GET', '/projects/a%00b')).status).to.equal(404);
    expect((await send('GET', '/instances/upload?project=%00')).status).to.equal(200);
    expect((await send('GET', '/instances/new?project=%00&clone_from=%00')).status).to.equal(200);
    for (const field of ['clone_from', 'project']) {
      const form = new URLSearchParams({ _csrf: csrf, name: 'several', project: 'found-target', erp_version: '19.0', [field]: '\u0000a' });
      const res = await send('POST', '/instances', { body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status, field).to.equal(422);
    }
  });

  const boundary = 'fuzzboundary';
  const part = (name: string, value: string, filename?: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n\r\n${value}\r\n`;

  it('an upload cut short while a file it ignores is read is a 400, not an uncaught "Unexpected end of form"', async () => {
    // No closing boundary: busboy errors the unread file stream, which had no error listener.
    const body = part('_csrf', csrf) + part('name', 'cut') + part('other', 'x'.repeat(100), 'other.bin');
    const res = await send('POST', '/instances/upload', { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    expect(res.status).to.equal(400);
    expect(res.text).to.include('The upload could not be read');
    // The process is still serving.
    expect((await send('GET', '/instances/upload')).status).to.equal(200);
  });

  it('a multipart upload without a boundary parameter is a 400', async () => {
    const res = await send('POST', '/instances/upload', { body: part('_csrf', csrf), headers: { 'content-type': 'multipart/form-data', 'x-csrf-token': csrf } });
    expect(res.status).to.equal(400);
    expect(res.text).to.include('The upload could not be read');
  });
});
