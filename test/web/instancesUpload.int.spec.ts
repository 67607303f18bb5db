import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { uploadDir } from '#shared/platform/dataPaths.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, textOf, type WebSession } from '#test/support/webSession.ts';

type Part = [name: string, value: string | { filename: string; content: Buffer | string }];

const PLAIN_SQL = '--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\nCOPY public.res_partner (id, name) FROM stdin;\n1\tAcmé SA\n\\.\n';
const ZIP = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), randomBytes(200)]);

const fields = (over: Record<string, string> = {}): Part[] =>
  Object.entries({ name: 'Restored', project: 'Uploads Co', stage: 'staging', erp_version: '17.0', edition: 'community', modules: 'stock', git_repo: '', branch: 'main', ...over });

describe('web: creating an instance from an uploaded dump', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let developer: WebSession;

  const uploadsDir = () => join(platform.config.FORJA_DATA_DIR, 'uploads');
  const uploads = () => (existsSync(uploadsDir()) ? readdirSync(uploadsDir()) : []);

  /** Posts a multipart form in the order given, as a browser does (fields in document order). */
  async function upload(session: WebSession, parts: Part[], headers: Record<string, string> = {}, base = platform.web) {
    const form = new FormData();
    for (const [name, value] of parts) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([value.content]), value.filename);
    }
    const res = await fetch(`${base}/instances/upload`, {
      method: 'POST',
      body: form,
      headers: { cookie: `${SESSION_COOKIE}=${session.cookie}`, ...headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, location: res.headers.get('location'), html: await res.text() };
  }

  before(async () => {
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
  });
  after(() => platform?.stop());

  it('shows the form with the token first, the file fields and the size limit', async () => {
    const res = await developer.get('/instances/upload?project=uploads-co');
    expect(res.status).to.equal(200);
    expect(res.html).to.match(/<form method="post" action="\/instances\/upload" enctype="multipart\/form-data">\s*<input type="hidden" name="_csrf"/);
    expect(res.html).to.include('name="dump"').and.include('name="filestore"');
    expect(textOf(res.html)).to.include('Up to 20 GiB in all.');
  });

  it('streams a plain SQL dump and a filestore archive to the upload folder and creates the instance from them', async () => {
    const res = await upload(developer, [['_csrf', await developer.csrfToken()], ...fields(), ['dump', { filename: 'prod.sql', content: PLAIN_SQL }], ['filestore', { filename: 'filestore.zip', content: ZIP }]]);
    expect(res.status, textOf(res.html)).to.equal(303);
    expect(res.location).to.equal('/instances/uploads-co-restored');
    const instance = await getInstance(platform.infra.db.withSchema('read_model'), 'uploads-co-restored');
    expect(instance?.source).to.deep.include({ kind: 'upload', dumpFormat: 'plain', hasFilestore: true });
    const dir = uploadDir(platform.config.FORJA_DATA_DIR, (instance!.source as { uploadId: string }).uploadId);
    expect(readFileSync(join(dir, 'dump'), 'utf8')).to.equal(PLAIN_SQL);
    expect(readFileSync(join(dir, 'filestore')).equals(ZIP)).to.equal(true);
    // Issue 10, item 1: customer dumps are Forja's alone, never readable by the database servers' OS users.
    expect(statSync(dir).mode & 0o777, 'upload folder').to.equal(0o700);
    for (const file of ['dump', 'filestore']) expect(statSync(join(dir, file)).mode & 0o777, file).to.equal(0o600);
    const page = await developer.get(res.location!);
    expect(textOf(page.html)).to.include('its database is restored from the uploaded dump').and.include('an uploaded plain SQL dump with its filestore');
  });

  it('recognises a pg_dump custom archive by its first bytes, also a large one, without a filestore', async () => {
    const dump = Buffer.concat([Buffer.from('PGDMP\x01\x0e\x00', 'latin1'), randomBytes(24 * 1024 * 1024)]);
    const res = await upload(developer, [['_csrf', await developer.csrfToken()], ...fields({ name: 'Big One' }), ['dump', { filename: 'big.dump', content: dump }], ['filestore', { filename: '', content: '' }]]);
    expect(res.status, textOf(res.html)).to.equal(303);
    const instance = await getInstance(platform.infra.db.withSchema('read_model'), 'uploads-co-big-one');
    expect(instance?.source).to.deep.include({ kind: 'upload', dumpFormat: 'custom', hasFilestore: false });
    const dir = uploadDir(platform.config.FORJA_DATA_DIR, (instance!.source as { uploadId: string }).uploadId);
    expect(statSync(join(dir, 'dump')).size).to.equal(dump.length);
    expect(readFileSync(join(dir, 'dump')).equals(dump)).to.equal(true);
    expect(existsSync(join(dir, 'filestore'))).to.equal(false);
  });

  it('refuses a file that is no dump with 422, keeping the input and no file', async () => {
    const before = uploads();
    const garbage = Buffer.concat([Buffer.from([0x00, 0x01, 0x02, 0xff]), randomBytes(64 * 1024)]);
    const res = await upload(developer, [['_csrf', await developer.csrfToken()], ...fields({ name: 'Garbage' }), ['dump', { filename: 'x.bin', content: garbage }]]);
    expect(res.status).to.equal(422);
    expect(res.html).to.match(/<small id="dump-error" class="field-error">not a pg_dump custom or plain SQL file<\/small>/);
    expect(res.html).to.match(/name="name" value="Garbage"/);
    expect(res.html).to.include('<option value="17.0" selected>');
    expect(uploads()).to.deep.equal(before);
    const gzip = await upload(developer, [['_csrf', await developer.csrfToken()], ...fields({ name: 'Gzipped' }), ['dump', { filename: 'x.sql.gz', content: Buffer.from([0x1f, 0x8b, 8, 0, 0, 0]) }]]);
    expect(textOf(gzip.html)).to.include('not a pg_dump custom or plain SQL file (it is gzip-compressed: decompress it first)');
    expect(uploads()).to.deep.equal(before);
  });

  it('refuses a filestore that is no archive, a missing dump and an empty one', async () => {
    const before = uploads();
    const token = await developer.csrfToken();
    const noArchive = await upload(developer, [['_csrf', token], ...fields(), ['dump', { filename: 'a.sql', content: PLAIN_SQL }], ['filestore', { filename: 'f.txt', content: 'just text' }]]);
    expect(noArchive.status).to.equal(422);
    expect(textOf(noArchive.html)).to.include('not a .zip, .tar or .tar.gz archive');
    const noDump = await upload(developer, [['_csrf', token], ...fields()]);
    expect(textOf(noDump.html)).to.include('choose the dump file (pg_dump custom format or plain SQL)');
    const empty = await upload(developer, [['_csrf', token], ...fields(), ['dump', { filename: 'empty.sql', content: '' }]]);
    expect(textOf(empty.html)).to.include('the dump file is empty');
    expect(uploads()).to.deep.equal(before);
  });

  it('removes the files when the control-plane refuses the instance, showing its reasons by field', async () => {
    const before = uploads();
    const res = await upload(developer, [['_csrf', await developer.csrfToken()], ...fields({ name: 'Bad Branch', branch: '-x' }), ['dump', { filename: 'a.sql', content: PLAIN_SQL }]]);
    expect(res.status).to.equal(422);
    expect(res.html).to.match(/name="branch" value="-x"[^>]*aria-invalid="true"/);
    expect(res.html).to.match(/<small id="branch-error" class="field-error">/);
    expect(uploads()).to.deep.equal(before);
  });

  it('refuses an upload without the token, with a wrong one, or with the token after the file: 403, nothing kept', async () => {
    const before = uploads();
    const dump: Part = ['dump', { filename: 'a.sql', content: PLAIN_SQL }];
    const other = await platform.signedIn('developer');
    for (const parts of [
      [...fields({ name: 'No Token' }), dump],
      [['_csrf', 'not-the-token'], ...fields({ name: 'Wrong Token' }), dump],
      [['_csrf', await other.csrfToken()], ...fields({ name: 'Other Token' }), dump],
      [...fields({ name: 'Late Token' }), dump, ['_csrf', await developer.csrfToken()]],
    ] as Part[][]) {
      const res = await upload(developer, parts);
      expect(res.status, parts.map(([name]) => name).join()).to.equal(403);
      expect(textOf(res.html)).to.include('This form has expired or did not come from Forja.');
    }
    expect(uploads()).to.deep.equal(before);
    expect(await getInstance(platform.infra.db.withSchema('read_model'), 'uploads-co-no-token')).to.equal(undefined);
  });

  it('takes the token in the X-CSRF-Token header too, as htmx sends the boosted form', async () => {
    const res = await upload(developer, [...fields({ name: 'Via Htmx' }), ['dump', { filename: 'a.sql', content: PLAIN_SQL }]], { 'x-csrf-token': await developer.csrfToken(), 'hx-request': 'true', 'hx-boosted': 'true' });
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/instances/uploads-co-via-htmx');
    const wrong = await upload(developer, [...fields({ name: 'Via Htmx Wrong' }), ['dump', { filename: 'a.sql', content: PLAIN_SQL }]], { 'x-csrf-token': 'nope' });
    expect(wrong.status).to.equal(403);
  });

  it('answers a form that is not multipart with 422 asking for the file', async () => {
    const res = await developer.post('/instances/upload', { name: 'Urlencoded', project: 'Uploads Co', erp_version: '17.0' });
    expect(res.status).to.equal(422);
    expect(textOf(res.html)).to.include('Send this form as multipart/form-data, with the dump file.');
  });

  it('refuses a viewer with 403, keeping nothing', async () => {
    const viewer = await platform.signedIn('viewer');
    const before = uploads();
    const res = await upload(viewer, [['_csrf', await viewer.csrfToken()], ...fields({ name: 'Viewer Upload' }), ['dump', { filename: 'a.sql', content: PLAIN_SQL }]]);
    expect(res.status).to.equal(403);
    expect(uploads()).to.deep.equal(before);
  });

  describe('with a size limit', () => {
    let small: WebPlatform;
    let smallDeveloper: WebSession;
    before(async () => {
      small = await startWebPlatform({ FORJA_UPLOAD_MAX_BYTES: '4096' });
      smallDeveloper = await small.signedIn('developer');
    });
    after(() => small?.stop());

    it('refuses files over the limit with 422 and keeps nothing', async () => {
      const res = await upload(smallDeveloper, [['_csrf', await smallDeveloper.csrfToken()], ...fields(), ['dump', { filename: 'a.sql', content: `${PLAIN_SQL}${'-- padding\n'.repeat(600)}` }]], {}, small.web);
      expect(res.status).to.equal(422);
      expect(textOf(res.html)).to.include('larger than 4 KiB, the most Forja takes in one upload');
      const dir = join(small.config.FORJA_DATA_DIR, 'uploads');
      expect(existsSync(dir) ? readdirSync(dir) : []).to.deep.equal([]);
    });

    it('answers 413 at once when the declared length is far over it', async () => {
      const res = await upload(smallDeveloper, [['_csrf', await smallDeveloper.csrfToken()], ...fields(), ['dump', { filename: 'a.dump', content: Buffer.concat([Buffer.from('PGDMP'), randomBytes(2 * 1024 * 1024)]) }]], {}, small.web);
      expect(res.status).to.equal(413);
      expect(textOf(res.html)).to.include('The upload is larger than 4 KiB, the most Forja takes.');
    });
  });
});
