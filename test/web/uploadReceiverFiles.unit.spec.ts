import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import type { Request } from 'express';
import { uploadKeys } from '#shared/blobs/blobKeys.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { clientFileName, MAX_FILE_NAME } from '#web/instances/uploadFormats.ts';
import { receiveUpload, type UploadOptions } from '#web/instances/uploadReceiver.ts';
import { storedZip } from '#test/support/storedZip.ts';

const BOUNDARY = 'forja-files-boundary';
/** A file's `filename` goes in quotes; `encodedName`, when given, as RFC 5987 `filename*` (a browser's way with unusual names). */
type Part = [name: string, value: string | { filename: string; content: Buffer; encodedName?: string }];

function multipart(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    const file = typeof value === 'string' ? undefined : value;
    const filename = file?.encodedName ? `; filename*=UTF-8''${file.encodedName}` : file ? `; filename="${file.filename}"` : '';
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename}\r\n\r\n`, 'utf8'));
    chunks.push(file ? file.content : Buffer.from(value as string, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** A request streaming `body` in 64 KiB chunks, as a socket delivers it. */
function request(body: Buffer): Request {
  const chunks = Array.from({ length: Math.ceil(body.length / 65536) }, (_, index) => body.subarray(index * 65536, (index + 1) * 65536));
  const req = Readable.from(chunks) as unknown as Request;
  Object.assign(req, { headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length) } });
  return req;
}

/** The size the end of central directory record gives (a zip without a comment: the record is its last 22 bytes). */
const centralDirectorySize = (zip: Buffer) => zip.readUInt32LE(zip.length - 22 + 12);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const PLAIN_SQL = Buffer.from('--\n-- PostgreSQL database dump\n--\nCOPY public.res_partner (id, name) FROM stdin;\n1\tAcmé SA\n\\.\n');

describe('web: the upload receiver’s files (issue 12: migrations from an upload)', function () {
  this.timeout(30_000);
  let dir: string;
  let blobDir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'forja-upload-files-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    blobDir = mkdtempSync(join(dir, 'blobs-'));
  });

  const receive = (parts: Part[], options?: UploadOptions, maxBytes = 64 * 1024 * 1024) => {
    const keys = uploadKeys(randomUUID());
    const blobs = createFsBlobStore(blobDir);
    const received = options ? receiveUpload(request(multipart(parts)), blobs, keys, maxBytes, false, options) : receiveUpload(request(multipart(parts)), blobs, keys, maxBytes, false);
    return received.then((result) => ({ result, keys, stored: (key: string) => (existsSync(join(blobDir, key)) ? readFileSync(join(blobDir, key)) : undefined) }));
  };
  /** Files under the uploads folder (the route, not the receiver, removes an upload's empty folder). */
  const storedFiles = () => (existsSync(join(blobDir, 'uploads')) ? readdirSync(join(blobDir, 'uploads'), { recursive: true, withFileTypes: true }).filter((entry) => !entry.isDirectory()).map((entry) => entry.name) : []);

  /** A zip made by bsdtar of `files` (path → content). */
  function zipOf(name: string, files: Record<string, string | Buffer>): Buffer {
    const folder = join(dir, `${name}-${randomUUID()}`);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(folder, path, '..'), { recursive: true });
      writeFileSync(join(folder, path), content);
    }
    const zip = join(dir, `${name}-${randomUUID()}.zip`);
    const made = spawnSync('bsdtar', ['-c', '--format', 'zip', '-f', zip, '-C', folder, ...readdirSync(folder)], { encoding: 'utf8' });
    expect(made.status, made.stderr).to.equal(0);
    return readFileSync(zip);
  }
  const BACKUP = () => zipOf('backup', { 'dump.sql': PLAIN_SQL, 'manifest.json': '{"version": "16.0"}', 'filestore/ab/ab12': randomBytes(3000) });

  it('reports the stored dump’s client name, size and sha256, computed over every chunk it streamed', async () => {
    const dump = Buffer.concat([Buffer.from('PGDMP\x01\x0e\x00', 'latin1'), randomBytes(3 * 1024 * 1024 + 17)]);
    const filestore = zipOf('filestore', { 'ab/ab12': randomBytes(5000) });
    const { result, keys, stored } = await receive([['name', 'Acme'], ['dump', { filename: 'acme prod.dump', content: dump }], ['filestore', { filename: 'fs.zip', content: filestore }]]);
    expect(result.errors).to.deep.equal({});
    expect(result.dump).to.equal('custom');
    expect(result.files).to.deep.equal({ dump: { name: 'acme prod.dump', bytes: dump.length, sha256: sha256(dump) }, filestore: { name: 'fs.zip', bytes: filestore.length, sha256: sha256(filestore) } });
    expect(stored(keys.dump)?.equals(dump)).to.equal(true);
    expect(stored(keys.filestore)?.equals(filestore)).to.equal(true);
  });

  it('takes an ERP backup .zip as the dump only when asked: instances still refuse it', async () => {
    const backup = BACKUP();
    const refused = await receive([['dump', { filename: 'acme.zip', content: backup }]]);
    expect(refused.result.errors).to.deep.equal({ dump: 'not a pg_dump custom or plain SQL file' });
    expect(refused.result.dump).to.equal(undefined);
    expect(refused.result.files).to.deep.equal({});
    expect(storedFiles()).to.deep.equal([]);
    const taken = await receive([['dump', { filename: 'acme.zip', content: backup }]], { zipDump: true });
    expect(taken.result.errors).to.deep.equal({});
    expect(taken.result.dump).to.equal('zip');
    expect(taken.result.backup).to.deep.equal({ filestore: true });
    expect(taken.result.files.dump).to.deep.equal({ name: 'acme.zip', bytes: backup.length, sha256: sha256(backup) });
    expect(taken.stored(taken.keys.dump)?.equals(backup)).to.equal(true);
    // Plain and custom dumps still pass with the option.
    expect((await receive([['dump', { filename: 'a.sql', content: PLAIN_SQL }]], { zipDump: true })).result.dump).to.equal('plain');
  });

  it('refuses a .zip without dump.sql, and a broken one, keeping nothing', async () => {
    const noDump = await receive([['dump', { filename: 'fs.zip', content: zipOf('nodump', { 'filestore/ab/ab12': 'x', 'manifest.json': '{}' }) }]], { zipDump: true });
    expect(noDump.result.errors['dump']).to.equal('a .zip that holds no dump.sql: not an ERP backup (it holds dump.sql, filestore/ and manifest.json)');
    expect(noDump.result.dump).to.equal(undefined);
    expect(noDump.result.files).to.deep.equal({});
    const broken = await receive([['dump', { filename: 'broken.zip', content: Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), randomBytes(20_000)]) }]], { zipDump: true });
    expect(broken.result.errors['dump']).to.match(/^not a readable \.zip archive \(.+\)$/);
    expect(storedFiles()).to.deep.equal([]);
  });

  it('finds dump.sql at the end of a central directory larger than one read block, and only at the top', async () => {
    const nested = await receive([['dump', { filename: 'nested.zip', content: zipOf('nested', { 'backup/dump.sql': PLAIN_SQL, 'filestore/ab/ab12': 'x' }) }]], { zipDump: true });
    expect(nested.result.errors['dump'], 'a dump.sql in a folder is not the backup’s').to.match(/holds no dump\.sql/);
    // 4 000 entries of long names: over 1 MiB of central directory, read in several blocks. The
    // filestore first, dump.sql last: found only after reading every block.
    const entries: Array<[string, Buffer]> = Array.from({ length: 4000 }, (_, index) => [`filestore/${'attachment-'.repeat(20)}${index}`, Buffer.alloc(0)]);
    const zip = storedZip([...entries, ['dump.sql', PLAIN_SQL]]);
    expect(centralDirectorySize(zip)).to.be.greaterThan(1024 * 1024);
    const wide = await receive([['dump', { filename: 'wide.zip', content: zip }]], { zipDump: true });
    expect(wide.result.errors).to.deep.equal({});
    expect(wide.result.backup).to.deep.equal({ filestore: true });
  });

  it('keeps the base name of what the browser sent, without control or direction characters, at most 200 characters', async () => {
    const { result } = await receive([['dump', { filename: '', encodedName: encodeURIComponent('C:\\Users\\ana\\prod\u0007 copy\u202E.sql'), content: PLAIN_SQL }]]);
    expect(result.files.dump?.name).to.equal('prod copy.sql');
    expect(clientFileName('../../etc/passwd', 'dump')).to.equal('passwd');
    expect(clientFileName('C:\\dumps\\acme.dump', 'dump')).to.equal('acme.dump');
    expect(clientFileName('invoice\u202Egpj.exe', 'dump')).to.equal('invoicegpj.exe');
    expect(clientFileName('tab\there\u0000\u001f\u007f\u0085.sql', 'dump')).to.equal('tabhere.sql');
    expect(clientFileName('\u0001\u0002', 'dump')).to.equal('dump');
    expect(clientFileName('dir/..', 'filestore')).to.equal('filestore');
    const long = `${'ñ'.repeat(300)}.dump`;
    const kept = clientFileName(long, 'dump');
    expect(Array.from(kept)).to.have.length(MAX_FILE_NAME);
    expect(kept.endsWith('….dump')).to.equal(true);
    const emoji = clientFileName('🐘'.repeat(250), 'dump');
    expect(Array.from(emoji)).to.have.length(MAX_FILE_NAME);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(emoji), 'a surrogate cut in half').to.equal(false);
  });
});
