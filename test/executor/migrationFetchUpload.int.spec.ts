import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { uploadKeys } from '#shared/blobs/blobKeys.ts';
import { BlobNotFoundError, type BlobStore } from '#shared/blobs/blobStore.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import type { MigrationInput } from '#services/migrations/domain/migration.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { fetch, inputDumpFile, inputFilestoreFile } from '#services/executor/migration/steps/fetch.ts';
import { runDir } from '#test/support/runDir.ts';
import { migrationStepContext } from './fixtures/migrationStepsContext.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);
/** fetch never reaches the database: a server nobody listens on. */
const NO_SERVER = 'postgres://forja@127.0.0.1:1/postgres';

/** `fetch` of an upload: the dump and its optional filestore archive come out of blob storage into the input folder. */
describe('executor: migration fetch of an upload (dump and filestore archive)', () => {
  let dataDir: string;
  let blobs: BlobStore;
  let uploadId: string;
  const dump = randomBytes(300_000);
  const filestore = randomBytes(120_000);

  const upload = (filestoreName: string | null): MigrationInput => ({ mode: 'upload', uploadId, dumpName: 'acme.dump', filestoreName, bytes: dump.length, sha256: 'c'.repeat(64) });
  const contextFor = (input: MigrationInput) =>
    migrationStepContext({ adminUrl: NO_SERVER, credentials, workingDatabase: 'erpdb_fetch', dataDir, blobs, step: { id: 'fetch', type: 'fetch', params: {} }, input });

  beforeEach(async () => {
    dataDir = runDir('migration-fetch-upload');
    blobs = createFsBlobStore(join(dataDir, 'blobs'));
    uploadId = randomUUID();
    await blobs.put(uploadKeys(uploadId).dump, Readable.from([dump]));
  });

  it('copies the dump and the filestore archive, saying what it copied; the facts carry both sizes', async () => {
    await blobs.put(uploadKeys(uploadId).filestore, Readable.from([filestore]));
    const { context, lines } = contextFor(upload('acme-filestore.tar.gz'));
    const outcome = await fetch(context);
    expect(outcome).to.deep.equal({ outcome: 'done', facts: { bytes: dump.length, sha256: 'c'.repeat(64), filestoreBytes: filestore.length } });
    expect(readFileSync(inputDumpFile(context.paths.input)).equals(dump)).to.equal(true);
    expect(readFileSync(inputFilestoreFile(context.paths.input)).equals(filestore)).to.equal(true);
    expect(lines).to.deep.equal([`copied the uploaded dump acme.dump (${dump.length} bytes)`, `copied the uploaded filestore archive acme-filestore.tar.gz (${filestore.length} bytes)`]);
    expect(readdirSync(context.paths.input).sort()).to.deep.equal(['dump', 'filestore']);
  });

  it('copies the dump alone when the upload has no filestore, removing an archive an earlier input left', async () => {
    const { context } = contextFor(upload(null));
    mkdirSync(context.paths.input, { recursive: true });
    writeFileSync(inputFilestoreFile(context.paths.input), 'an earlier input');
    expect(await fetch(context)).to.deep.equal({ outcome: 'done', facts: { bytes: dump.length, sha256: 'c'.repeat(64) } });
    expect(readdirSync(context.paths.input)).to.deep.equal(['dump']);
  });

  it('starts a retry clean: what an interrupted copy left aside is replaced, and the files are whole', async () => {
    await blobs.put(uploadKeys(uploadId).filestore, Readable.from([filestore]));
    const { context } = contextFor(upload('fs.zip'));
    mkdirSync(context.paths.input, { recursive: true });
    for (const file of [inputDumpFile(context.paths.input), inputFilestoreFile(context.paths.input)]) {
      writeFileSync(`${file}.part`, 'half of an earlier copy');
      writeFileSync(file, 'an older input');
    }
    await fetch(context);
    expect(readFileSync(inputDumpFile(context.paths.input)).equals(dump)).to.equal(true);
    expect(readFileSync(inputFilestoreFile(context.paths.input)).equals(filestore)).to.equal(true);
    expect(readdirSync(context.paths.input).sort()).to.deep.equal(['dump', 'filestore']);
  });

  it('rejects when the filestore archive is missing from blob storage, leaving nothing half-copied', async () => {
    const { context } = contextFor(upload('fs.zip'));
    const error = await fetch(context).then(
      () => expect.fail('fetch should have failed'),
      (caught: Error) => caught,
    );
    expect(error).to.be.instanceOf(BlobNotFoundError);
    expect(error.message).to.equal(`no blob at ${uploadKeys(uploadId).filestore}`);
    expect(existsSync(`${inputFilestoreFile(context.paths.input)}.part`)).to.equal(false);
    expect(existsSync(inputFilestoreFile(context.paths.input))).to.equal(false);
  });

  it('stops when the step is aborted, keeping no partial copy', async () => {
    const abort = new AbortController();
    const reason = new Error('paused by the operator');
    abort.abort(reason);
    const { context } = migrationStepContext({
      adminUrl: NO_SERVER,
      credentials,
      workingDatabase: 'erpdb_fetch',
      dataDir,
      blobs,
      step: { id: 'fetch', type: 'fetch', params: {} },
      input: upload(null),
      signal: abort.signal,
    });
    const error = await fetch(context).then(
      () => expect.fail('fetch should have stopped'),
      (caught: Error) => caught,
    );
    expect(error.name).to.equal('AbortError');
    expect(readdirSync(context.paths.input)).to.deep.equal([]);
  });
});
