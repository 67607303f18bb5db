import { appendFileSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { instanceLogKey, uploadKeys } from '#shared/blobs/blobKeys.ts';
import { InvalidBlobKeyError } from '#shared/blobs/blobStore.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { instanceLogFile, uploadDir } from '#shared/platform/dataPaths.ts';
import { runDir } from '#test/support/runDir.ts';
import { BAD_KEYS, blobStoreContract, bytesOf, rejectionOf } from './blobStore.contract.ts';

blobStoreContract('filesystem', async () => createFsBlobStore(runDir('blobs')));

/** Every file and folder under `dir`, relative, hidden ones included. */
function tree(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = `${prefix}${entry.name}`;
    return entry.isDirectory() ? [`${path}/`, ...tree(join(dir, entry.name), `${path}/`)] : [path];
  });
}

describe('filesystem blob store', () => {
  let root: string;
  beforeEach(() => (root = runDir('blobs')));

  it('keeps each key as the file at that path under its root, where FORJA_DATA_DIR always had it', async () => {
    const blobs = createFsBlobStore(root);
    const key = instanceLogKey('acme-dev', 'erp');
    expect(blobs.pathOf(key)).to.equal(join(root, 'instances', 'acme-dev', 'logs', 'erp.log'));
    expect(blobs.pathOf(key)).to.equal(instanceLogFile(root, 'acme-dev', 'erp'));
    const upload = uploadKeys('0b8e0f6e-3c1f-4d5a-9a57-3f1c2b7d9e10');
    expect(blobs.pathOf(upload.dump)).to.equal(join(uploadDir(root, '0b8e0f6e-3c1f-4d5a-9a57-3f1c2b7d9e10'), 'dump'));
    // A log written before the port (the executor writes by path) reads through it.
    mkdirSync(join(root, 'instances', 'acme-dev', 'logs'), { recursive: true });
    writeFileSync(instanceLogFile(root, 'acme-dev', 'erp'), 'INFO written by path\n');
    expect(await bytesOf(await blobs.get(key))).to.equal('INFO written by path\n');
  });

  it('refuses a bad key in pathOf too: no path outside the root is ever built', () => {
    const blobs = createFsBlobStore(root);
    for (const [key] of BAD_KEYS) expect(() => blobs.pathOf(key), JSON.stringify(key)).to.throw(InvalidBlobKeyError);
  });

  it('writes files 0600 in folders 0700 it creates, and creates a missing root without narrowing it', async () => {
    const missingRoot = join(root, 'data');
    const blobs = createFsBlobStore(missingRoot);
    const keys = uploadKeys('0b8e0f6e-3c1f-4d5a-9a57-3f1c2b7d9e10');
    await blobs.put(keys.dump, Readable.from([Buffer.from('SELECT 1;\n')]));
    expect(statSync(missingRoot).mode & 0o777, 'the root, shared with the ERP and database users').to.not.equal(0o700);
    expect(statSync(join(missingRoot, 'uploads')).mode & 0o777).to.equal(0o700);
    expect(statSync(join(missingRoot, keys.prefix)).mode & 0o777).to.equal(0o700);
    expect(statSync(blobs.pathOf(keys.dump)).mode & 0o777).to.equal(0o600);
  });

  it('leaves no temporary file behind: not after a put, a failed put, an abort or a destroyed writer', async () => {
    const blobs = createFsBlobStore(root);
    await blobs.put('a/ok', Readable.from([Buffer.from('ok')]));
    await rejectionOf(
      blobs.put(
        'a/failed',
        Readable.from(
          (async function* () {
            yield Buffer.alloc(64 * 1024, 1);
            throw new Error('cut');
          })(),
        ),
      ),
    );
    const aborted = await blobs.openWriter('a/aborted');
    aborted.stream.write('x');
    await aborted.abort();
    const destroyed = await blobs.openWriter('a/destroyed');
    destroyed.stream.on('error', () => undefined);
    destroyed.stream.write('x');
    await new Promise((resolve) => destroyed.stream.destroy(new Error('gone')).once('close', resolve));
    // The destroyed writer removes its file once the stream closed; nobody called abort.
    for (let tries = 0; tree(root).length > 2 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(tree(root)).to.deep.equal(['a/', 'a/ok']);
  });

  it('follows a file another writer appends to by path: size grows, generation stays; a replaced file gets a new one', async () => {
    const blobs = createFsBlobStore(root);
    await blobs.put('logs/erp.log', Readable.from([Buffer.from('one\n')]));
    const first = await blobs.stat('logs/erp.log');
    appendFileSync(blobs.pathOf('logs/erp.log'), 'two\n');
    const grown = await blobs.stat('logs/erp.log');
    expect(grown).to.deep.include({ size: 8, generation: first!.generation });
    expect(await bytesOf(await blobs.get('logs/erp.log', { start: first!.size }))).to.equal('two\n');
    writeFileSync(join(root, 'logs', 'new.log'), 'a whole new log\n');
    renameSync(join(root, 'logs', 'new.log'), blobs.pathOf('logs/erp.log'));
    expect((await blobs.stat('logs/erp.log'))?.generation).to.not.equal(first!.generation);
  });

  it('deletes a prefix that is a single file as well as a folder', async () => {
    const blobs = createFsBlobStore(root);
    await blobs.put('single', Readable.from([Buffer.from('1')]));
    await blobs.deletePrefix('single');
    expect(existsSync(join(root, 'single'))).to.equal(false);
  });
});
