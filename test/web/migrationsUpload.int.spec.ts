import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { getMigration } from '#projections/erpMigrations/migrationDetail.ts';
import { uploadDir } from '#shared/platform/dataPaths.ts';
import { storedZip } from '#test/support/storedZip.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, textOf, type WebSession } from '#test/support/webSession.ts';

type Part = [name: string, value: string | { filename: string; content: Buffer | string }];

const CUSTOM_DUMP = Buffer.concat([Buffer.from('PGDMP\x01\x0e\x00', 'latin1'), randomBytes(256 * 1024)]);
const PLAIN_SQL = '--\n-- PostgreSQL database dump\n--\nCOPY public.res_partner (id, name) FROM stdin;\n1\tAcmé SA\n\\.\n';
const FILESTORE = storedZip([['ab/ab12', Buffer.from('an attachment')]]);
const BACKUP = storedZip([['dump.sql', Buffer.from(PLAIN_SQL)], ['manifest.json', Buffer.from('{"version": "16.0"}')], ['filestore/ab/ab12', Buffer.from('x')]]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const fields = (over: Record<string, string> = {}): Part[] =>
  Object.entries({ name: 'Uploaded', origin: '16.0', destination: '17.0', flavor: 'community', engine: '', purpose: 'test', contract: '', notify_to: 'ops@example.com', pull_url: '', ...over });
const dumpPart = (content: Buffer | string = CUSTOM_DUMP, filename = 'acme.dump'): Part => ['dump', { filename, content }];
const noFile = (name: string): Part => [name, { filename: '', content: '' }];

describe('web: creating a migration from an uploaded dump (issue 12)', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let developer: WebSession;

  const uploadFiles = (base = platform) => {
    const dir = join(base.config.FORJA_DATA_DIR, 'uploads');
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  const migration = (slug: string) => getMigration(platform.infra.db.withSchema('read_model'), slug);

  /** Posts the multipart form in the order given, as a browser does (document order: the token first). */
  async function post(session: WebSession, parts: Part[], headers: Record<string, string> = {}, base = platform.web) {
    const form = new FormData();
    for (const [name, value] of parts) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([value.content]), value.filename);
    }
    const res = await fetch(`${base}/migrations/new`, { method: 'POST', body: form, headers: { cookie: `${SESSION_COOKIE}=${session.cookie}`, ...headers }, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    return { status: res.status, location: res.headers.get('location'), html: await res.text() };
  }
  const token = async (): Promise<Part> => ['_csrf', await developer.csrfToken()];

  before(async () => {
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
  });
  after(() => platform?.stop());

  it('shows one multipart form, the token first, with the address and both file inputs labelled', async () => {
    const res = await developer.get('/migrations/new');
    expect(res.html).to.match(/<form method="post" action="\/migrations\/new" enctype="multipart\/form-data">\s*<input type="hidden" name="_csrf"/);
    for (const [id, label] of [['pull_url', 'Download address of the dump'], ['dump', 'Dump file to upload'], ['filestore', 'Filestore archive (optional, with an uploaded dump)']]) {
      expect(res.html).to.include(`<label for="f-${id}">${label}</label>`);
    }
    expect(res.html).to.match(/<input type="file" id="f-dump" name="dump" aria-describedby="dump-help">/);
    expect(textOf(res.html)).to.include('up to 20 GiB with the filestore');
  });

  it('streams a custom dump and a filestore to blob storage and creates the draft from them', async () => {
    const res = await post(developer, [await token(), ...fields({ name: 'Acme Upload' }), dumpPart(), ['filestore', { filename: 'filestore.zip', content: FILESTORE }]]);
    expect(res.status, textOf(res.html)).to.equal(303);
    expect(res.location).to.equal('/migrations/acme-upload');
    const row = await migration('acme-upload');
    expect(row?.input).to.deep.equal({ mode: 'upload', pull_url: null, dump_name: 'acme.dump', filestore_name: 'filestore.zip', bytes: CUSTOM_DUMP.length, sha256: sha256(CUSTOM_DUMP) });
    const event = (await platform.infra.store.readStream('migration-acme-upload')).events[0]!;
    const { uploadId } = (event.data as { input: { uploadId: string } }).input;
    const dir = uploadDir(platform.config.FORJA_DATA_DIR, uploadId);
    expect(readFileSync(join(dir, 'dump')).equals(CUSTOM_DUMP)).to.equal(true);
    expect(readFileSync(join(dir, 'filestore')).equals(FILESTORE)).to.equal(true);
    const page = await developer.get(res.location!);
    const text = textOf(page.html);
    expect(text).to.include('Migration Acme Upload created as a draft from the uploaded acme.dump (256 KiB) and filestore.zip: run it when you are ready.');
    expect(page.html).to.include(`uploaded: <code>acme.dump</code>, 256 KiB (${CUSTOM_DUMP.length} bytes), with <code>filestore.zip</code>`);
    expect(page.html).to.include(`<code class="repo">${sha256(CUSTOM_DUMP)}</code>`);
  });

  it('takes an ERP backup .zip as the dump, and a plain SQL one', async () => {
    const zip = await post(developer, [await token(), ...fields({ name: 'Zip Backup' }), dumpPart(BACKUP, 'acme_2026-11-20.zip'), noFile('filestore')]);
    expect(zip.status, textOf(zip.html)).to.equal(303);
    expect((await migration('zip-backup'))?.input).to.deep.include({ dump_name: 'acme_2026-11-20.zip', filestore_name: null, bytes: BACKUP.length, sha256: sha256(BACKUP) });
    expect(textOf((await developer.get(zip.location!)).html)).to.include('created as a draft from the uploaded ERP backup acme_2026-11-20.zip with its filestore');
    const plain = await post(developer, [await token(), ...fields({ name: 'Plain Upload' }), dumpPart(PLAIN_SQL, 'prod.sql')]);
    expect(plain.status, textOf(plain.html)).to.equal(303);
    expect((await migration('plain-upload'))?.input).to.deep.include({ dump_name: 'prod.sql', bytes: Buffer.byteLength(PLAIN_SQL) });
  });

  it('still takes a download address through the same form, storing nothing', async () => {
    const before = uploadFiles();
    const res = await post(developer, [await token(), ...fields({ name: 'Pulled', pull_url: 'https://files.example.com/acme.dump' }), noFile('dump'), noFile('filestore')]);
    expect(res.status, textOf(res.html)).to.equal(303);
    expect((await migration('pulled'))?.input).to.deep.include({ mode: 'pull', pull_url: 'https://files.example.com/acme.dump' });
    expect(textOf((await developer.get(res.location!)).html)).to.include('Migration Pulled created as a draft: run it when you are ready.');
    expect(uploadFiles()).to.deep.equal(before);
  });

  it('refuses a form with no source, or both, with 422: what was typed kept, nothing stored', async () => {
    const before = uploadFiles();
    const none = await post(developer, [await token(), ...fields({ name: 'No Source', notify_to: 'ana@example.com' }), noFile('dump')]);
    expect(none.status).to.equal(422);
    expect(none.html).to.include('<small id="pull_url-error" class="field-error">give the download address of the dump, or choose the dump file to upload</small>');
    expect(none.html).to.match(/name="name" value="No Source"/).and.include('ana@example.com</textarea>');
    // The control-plane's other reasons come with it.
    const badName = await post(developer, [await token(), ...fields({ name: '   ' })]);
    expect(badName.html).to.include('id="name-error"').and.include('id="pull_url-error"');
    const both = await post(developer, [await token(), ...fields({ name: 'Both', pull_url: 'https://files.example.com/a.dump' }), dumpPart()]);
    expect(both.status).to.equal(422);
    expect(both.html).to.include('<small id="dump-error" class="field-error">give either the download address or a dump file, not both</small>');
    expect(both.html).to.match(/name="pull_url" value="https:\/\/files.example.com\/a.dump"/);
    expect(textOf(both.html)).to.not.include('Choose the files again');
    const strayFilestore = await post(developer, [await token(), ...fields({ name: 'Stray', pull_url: 'https://files.example.com/a.dump' }), noFile('dump'), ['filestore', { filename: 'fs.zip', content: FILESTORE }]]);
    expect(strayFilestore.status).to.equal(422);
    expect(strayFilestore.html).to.include('id="filestore-error"');
    expect(uploadFiles()).to.deep.equal(before);
    for (const slug of ['no-source', 'both', 'stray']) expect(await migration(slug), slug).to.equal(undefined);
  });

  it('refuses what is no dump, a .zip that is no ERP backup and a filestore that is no archive, keeping nothing', async () => {
    const before = uploadFiles();
    const garbage = await post(developer, [await token(), ...fields({ name: 'Garbage' }), dumpPart(Buffer.from([0, 1, 2, 255]), 'x.bin')]);
    expect(garbage.status).to.equal(422);
    expect(garbage.html).to.include('<small id="dump-error" class="field-error">not a pg_dump custom or plain SQL file</small>');
    expect(textOf(garbage.html)).to.include('Choose the files again: a refused upload keeps nothing.');
    const filestoreZip = await post(developer, [await token(), ...fields({ name: 'Not Backup' }), dumpPart(FILESTORE, 'filestore.zip')]);
    expect(textOf(filestoreZip.html)).to.include('a .zip that holds no dump.sql: not an ERP backup');
    const notArchive = await post(developer, [await token(), ...fields({ name: 'Not Archive' }), dumpPart(), ['filestore', { filename: 'fs.txt', content: 'just text' }]]);
    expect(notArchive.status).to.equal(422);
    expect(notArchive.html).to.include('<small id="filestore-error" class="field-error">not a .zip, .tar or .tar.gz archive</small>');
    expect(uploadFiles()).to.deep.equal(before);
  });

  it('drops the stored files when the control-plane refuses the fields, showing its reasons at them', async () => {
    const before = uploadFiles();
    const res = await post(developer, [await token(), ...fields({ name: 'Backwards', origin: '17.0', destination: '16.0' }), dumpPart()]);
    expect(res.status).to.equal(422);
    expect(res.html).to.include('<small id="destination-error" class="field-error">');
    expect(res.html).to.include('<option value="17.0" selected>');
    expect(uploadFiles()).to.deep.equal(before);
  });

  it('refuses a form without its token first with 403, and a viewer, keeping nothing', async () => {
    const before = uploadFiles();
    for (const parts of [[...fields({ name: 'No Token' }), dumpPart()], [['_csrf', 'wrong'], ...fields({ name: 'Wrong Token' }), dumpPart()], [...fields({ name: 'Late' }), dumpPart(), await token()]] as Part[][]) {
      const res = await post(developer, parts);
      expect(res.status, parts.map(([name]) => name).join()).to.equal(403);
      expect(textOf(res.html)).to.include('This form has expired or did not come from Forja.');
    }
    const viewer = await platform.signedIn('viewer');
    expect((await post(viewer, [['_csrf', await viewer.csrfToken()], ...fields({ name: 'Viewer' }), dumpPart()])).status).to.equal(403);
    expect(uploadFiles()).to.deep.equal(before);
  });

  it('takes the token in the X-CSRF-Token header, as htmx sends the boosted form', async () => {
    const res = await post(developer, [...fields({ name: 'Via Htmx' }), dumpPart()], { 'x-csrf-token': await developer.csrfToken(), 'hx-request': 'true', 'hx-boosted': 'true' });
    expect(res.status, textOf(res.html)).to.equal(303);
    expect(res.location).to.equal('/migrations/via-htmx');
  });

  describe('with a size limit', () => {
    let small: WebPlatform;
    let smallDeveloper: WebSession;
    before(async () => {
      small = await startWebPlatform({ FORJA_UPLOAD_MAX_BYTES: '4096' });
      smallDeveloper = await small.signedIn('developer');
    });
    after(() => small?.stop());

    it('refuses files over the limit with 422, keeping the input and nothing stored', async () => {
      const res = await post(smallDeveloper, [['_csrf', await smallDeveloper.csrfToken()], ...fields({ name: 'Too Big' }), dumpPart(`${PLAIN_SQL}${'-- padding\n'.repeat(600)}`, 'big.sql')], {}, small.web);
      expect(res.status).to.equal(422);
      expect(textOf(res.html)).to.include('larger than 4 KiB, the most Forja takes in one upload');
      expect(res.html).to.match(/name="name" value="Too Big"/);
      expect(uploadFiles(small)).to.deep.equal([]);
    });

    it('answers 413 at once when the declared length is far over it', async () => {
      const res = await post(smallDeveloper, [['_csrf', await smallDeveloper.csrfToken()], ...fields(), dumpPart(Buffer.concat([Buffer.from('PGDMP'), randomBytes(2 * 1024 * 1024)]))], {}, small.web);
      expect(res.status).to.equal(413);
      expect(textOf(res.html)).to.include('The upload is larger than 4 KiB, the most Forja takes.');
      expect(uploadFiles(small)).to.deep.equal([]);
    });
  });
});
