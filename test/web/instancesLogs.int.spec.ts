import { appendFileSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'chai';
import { instanceLogFile } from '#shared/platform/dataPaths.ts';
import { openEventStream, type EventStream, type SseEvent } from '#test/support/sseClient.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

const lines = (events: SseEvent[]) => events.filter((event) => event.event === 'message').map((event) => event.data);

describe('web: instance logs — the live viewer’s event stream, the page and the download', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let viewer: WebSession;
  const open: EventStream[] = [];
  let slug: string;
  let erpLog: string;

  const stream = async (path: string, headers: Record<string, string> = {}, session: WebSession | undefined = viewer) => {
    const opened = await openEventStream(platform.web, session, path, headers);
    open.push(opened);
    return opened;
  };

  before(async () => {
    platform = await startWebPlatform();
    viewer = await platform.signedIn('viewer');
    const developer = await platform.signedIn('developer');
    const created = await developer.post('/instances', { name: 'Logs', project: 'Loggers', erp_version: '17.0' });
    expect(created.status).to.equal(303);
    slug = created.location!.replace('/instances/', '');
    erpLog = instanceLogFile(platform.config.FORJA_DATA_DIR, slug, 'erp');
    mkdirSync(dirname(erpLog), { recursive: true });
    writeFileSync(erpLog, 'INFO starting\nINFO loading modules\n');
  });
  afterEach(() => {
    for (const opened of open.splice(0)) opened.close();
  });
  after(() => platform?.stop());

  it('sends what is stored, each line with the byte offset after it as its id, then lines as they are written', async () => {
    const events = await stream(`/instances/${slug}/logs/stream?source=erp`);
    expect(events.status).to.equal(200);
    expect(events.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
    expect(events.headers.get('cache-control')).to.include('no-cache');
    const stored = await events.until((event) => event.data === 'INFO loading modules');
    expect(stored.map(({ id, data }) => ({ id, data }))).to.deep.equal([
      { id: '14', data: 'INFO starting' },
      { id: '35', data: 'INFO loading modules' },
    ]);
    appendFileSync(erpLog, 'INFO módulo l10n_ar\r\nWARNING half');
    expect(await events.next()).to.deep.equal({ id: String(35 + Buffer.byteLength('INFO módulo l10n_ar\r\n')), event: 'message', data: 'INFO módulo l10n_ar' });
    appendFileSync(erpLog, ' a line\nINFO ready\n');
    expect(lines(await events.until((event) => event.data === 'INFO ready'))).to.deep.equal(['WARNING half a line', 'INFO ready']);
  });

  it('resumes after the Last-Event-ID a reconnecting EventSource sends, without repeating a line', async () => {
    const events = await stream(`/instances/${slug}/logs/stream`, { 'last-event-id': '14' });
    const resumed = await events.until((event) => event.data === 'INFO ready');
    expect(lines(resumed)).to.deep.equal(['INFO loading modules', 'INFO módulo l10n_ar', 'WARNING half a line', 'INFO ready']);
    expect(resumed[0]!.id).to.equal('35');
  });

  it('waits for a log that does not exist yet, then follows it', async () => {
    const dbLog = instanceLogFile(platform.config.FORJA_DATA_DIR, slug, 'db');
    const events = await stream(`/instances/${slug}/logs/stream?source=db`);
    expect((await events.next()).event).to.equal('waiting');
    writeFileSync(dbLog, 'created database\n');
    expect(await events.next()).to.deep.equal({ id: '17', event: 'message', data: 'created database' });
  });

  it('starts again at the beginning when the log is truncated', async () => {
    const other = instanceLogFile(platform.config.FORJA_DATA_DIR, slug, 'db');
    writeFileSync(other, 'one\ntwo\n');
    const events = await stream(`/instances/${slug}/logs/stream?source=db`);
    expect(lines(await events.until((event) => event.data === 'two'))).to.deep.equal(['one', 'two']);
    truncateSync(other, 0);
    appendFileSync(other, 'fresh\n');
    const after = await events.until((event) => event.data === 'fresh');
    expect(after.map((event) => event.event)).to.deep.equal(['truncated', 'message']);
    expect(after[0]!.id, 'a reconnect after the truncation starts at 0').to.equal('0');
    expect(after[1]!.id).to.equal('6');
  });

  it('sends a last line without its newline once it stops growing', async () => {
    const events = await stream(`/instances/${slug}/logs/stream`, { 'last-event-id': String(statSync(erpLog).size) });
    appendFileSync(erpLog, 'Traceback without a newline');
    const event = await events.next(6000);
    expect(event.data).to.equal('Traceback without a newline');
  });

  it('refuses an unknown source with 422 and an unknown instance with 404', async () => {
    const unknownSource = await stream(`/instances/${slug}/logs/stream?source=nginx`);
    expect(unknownSource.status).to.equal(422);
    expect(textOf(await unknownSource.text())).to.include('There is no nginx log');
    const unknownInstance = await stream('/instances/no-such-instance/logs/stream?source=erp');
    expect(unknownInstance.status).to.equal(404);
    for (const path of [`/instances/${slug}/logs?source=nginx`, `/instances/${slug}/logs/download?source=nginx`]) expect((await viewer.get(path)).status, path).to.equal(422);
    for (const path of ['/instances/no-such-instance/logs', '/instances/no-such-instance/logs/download']) expect((await viewer.get(path)).status, path).to.equal(404);
  });

  it('sends anonymous visitors to sign in', async () => {
    const events = await stream(`/instances/${slug}/logs/stream`, {}, platform.visitor());
    expect(events.status).to.equal(303);
    expect(events.headers.get('location')).to.equal(`/login?next=${encodeURIComponent(`/instances/${slug}/logs/stream`)}`);
  });

  it('downloads the whole log as a text attachment named after the instance and source', async () => {
    const res = await viewer.get(`/instances/${slug}/logs/download?source=erp`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename=${slug}-erp.log`);
    expect(res.html).to.equal(readFileSync(erpLog, 'utf8'));
    expect((await viewer.get(`/instances/${slug}/logs/download`)).headers.get('content-disposition'), 'erp is the default source').to.include(`${slug}-erp.log`);
  });

  it('shows the viewer page: the source switch, the stream it follows, the download and its script', async () => {
    const res = await viewer.get(`/instances/${slug}/logs?source=db`);
    expect(res.status).to.equal(200);
    expect(res.html).to.include(`data-log-stream="/instances/${slug}/logs/stream?source=db"`);
    expect(res.html).to.match(new RegExp(`href="/instances/${slug}/logs\\?source=db" class="button small" aria-current="page"`));
    expect(res.html).to.include(`href="/instances/${slug}/logs?source=erp"`);
    expect(res.html).to.include(`href="/instances/${slug}/logs/download?source=db" hx-boost="false" download`);
    expect(res.html).to.include('<script src="/static/logViewer.js"></script>');
    expect((await fetch(`${platform.web}/static/logViewer.js`)).status).to.equal(200);
  });
});
