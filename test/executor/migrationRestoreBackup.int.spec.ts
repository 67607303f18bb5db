import { randomUUID } from 'node:crypto';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { expect } from 'chai';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import type { StepOutcome } from '#shared/workflow/stepOutcome.ts';
import type { MigrationInput } from '#services/migrations/domain/migration.ts';
import { erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import { inputDumpFile, inputFilestoreFile } from '#services/executor/migration/steps/fetch.ts';
import { filestore as filestoreCheck } from '#services/executor/migration/steps/filestore.ts';
import { backupDumpFile, restore } from '#services/executor/migration/steps/restore.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { type ZipSource, writeZip } from '../../scripts/padron/generator/zipWriter.ts';
import { bsdtar, freshName, memoryLog, pgDump, sql } from './fixtures/databaseFixtures.ts';
import { MIGRATION_ERP_TABLES, migrationStepContext, type StepContextOptions } from './fixtures/migrationStepsContext.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);
const MANIFEST = { odoo_dump: '1', db_name: 'acme_prod', version: '16.0+e', version_info: [16, 0, 0, 'final', 0, 'e'], major_version: '16.0', pg_version: '15.5', modules: { base: '16.0.1.3', sale: '16.0.1.0' } };
/** The attachments MIGRATION_ERP_TABLES lists, as files. */
const ATTACHMENTS = { 'ab/ab12': 'invoice.pdf', 'cd/cd34': 'logo.png' };

/** `restore` of an ERP backup .zip (dump.sql, manifest.json, filestore/) and of a filestore archive uploaded beside the input. */
describe('executor: migration restore of ERP backups and filestores', function () {
  this.timeout(60_000);
  let adminUrl: string;
  let dir: string;
  let plainDump: string;
  let customDump: string;
  let work: string;
  let dataDir: string;

  /** A folder zipped by bsdtar: `dump.sql` unless `dump: false`, `manifest.json` unless null, `files` by path. */
  function backupZip(name: string, { manifest = MANIFEST as unknown, dump = true, files = prefixed('filestore/', ATTACHMENTS) }: { manifest?: unknown; dump?: boolean; files?: Record<string, string> } = {}): string {
    const folder = join(dir, `${name}-src`);
    mkdirSync(folder);
    if (dump) copyFileSync(plainDump, join(folder, 'dump.sql'));
    if (manifest !== null) writeFileSync(join(folder, 'manifest.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
    writeTree(folder, files);
    bsdtar(['-c', '--format', 'zip', '-f', join(dir, name), '-C', folder, ...readdirSync(folder)]);
    return join(dir, name);
  }
  const contextFor = (input: MigrationInput = { mode: 'pull', pullUrl: 'https://example.com/backup.zip' }, options: Partial<StepContextOptions> = {}) =>
    migrationStepContext({ adminUrl, credentials, workingDatabase: work, dataDir, blobs: createFsBlobStore(join(dataDir, 'blobs')), step: { id: 'restore', type: 'restore', params: {} }, input, ...options });
  /** The context with `file` fetched as its input (and `archive` as the uploaded filestore). */
  function fetched(file: string, input?: MigrationInput, archive?: string, options: Partial<StepContextOptions> = {}) {
    const made = contextFor(input, options);
    mkdirSync(made.context.paths.input, { recursive: true });
    copyFileSync(file, inputDumpFile(made.context.paths.input));
    if (archive) copyFileSync(archive, inputFilestoreFile(made.context.paths.input));
    return { ...made, filestore: join(made.context.paths.filestore, work) };
  }
  const upload = (filestoreName: string | null): MigrationInput => ({ mode: 'upload', uploadId: randomUUID(), dumpName: 'acme.zip', filestoreName, bytes: 1, sha256: null });
  const attachments = async () => (await sql<{ n: number }>(urlAs(adminUrl, work, credentials(work)), work, 'select count(*)::int as n from ir_attachment'))[0]?.n;
  const exists = (name: string) => erpDatabases({ adminUrl, log: memoryLog().stream, credentials }).exists(name);
  const failure = (outcome: StepOutcome) => {
    if (outcome.outcome !== 'fail') throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
    expect(outcome.retryable, 'a refused input is not retried').to.equal(false);
    return outcome.error;
  };

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
    dir = runDir('migration-restore-backup');
    const source = freshName('backupsrc');
    await sql(adminUrl, 'postgres', `create database ${source}`);
    await sql(adminUrl, source, MIGRATION_ERP_TABLES);
    plainDump = join(dir, 'dump.sql');
    customDump = join(dir, 'customer.dump');
    pgDump(adminUrl, source, 'p', plainDump);
    pgDump(adminUrl, source, 'c', customDump);
  });
  beforeEach(() => {
    dataDir = runDir('migration-restore-data');
    work = freshName('migbackup');
  });

  it('restores a backup .zip: the manifest checked and logged, dump.sql restored, filestore/ as the working filestore, which the filestore check finds whole', async () => {
    const { context, lines, filestore } = fetched(backupZip('backup.zip'));
    writeTree(filestore, { stale: 'left by an earlier run' });
    const outcome = await restore(context);
    expect(outcome).to.deep.equal({ outcome: 'done', facts: { format: 'plain', database: work, filestoreFiles: 2, backup: { version: '16.0+e', modules: 2 } } });
    expect(await attachments()).to.equal(3);
    expect(readTree(filestore)).to.deep.equal(ATTACHMENTS);
    expect(lines[0]).to.equal('the input is an ERP backup .zip: dump.sql, filestore/ (2 file(s)), manifest.json; manifest: ERP 16.0+e, database acme_prod, PostgreSQL 15.5, 2 installed module(s)');
    expect(lines).to.include(`working filestore ${filestore} rebuilt: 2 file(s) (2 from the backup's filestore/)`);
    expect(lines.some((line) => /^extracted dump\.sql from the backup: /.test(line))).to.equal(true);
    expect(existsSync(backupDumpFile(context.paths.input)), 'the extracted dump is removed once restored').to.equal(false);
    expect(await exists(`${work}_ck`), 'the first checkpoint').to.equal(true);
    const check = migrationStepContext({ adminUrl, credentials, workingDatabase: work, dataDir, blobs: context.blobs, step: { id: 'filestore', type: 'filestore', params: { maxMissing: 0 } } });
    check.context.paths.filestore = context.paths.filestore;
    expect(await filestoreCheck(check.context)).to.deep.equal({ outcome: 'done', facts: { files: 2, missing: 0 } });
    // A retry starts from the input alone.
    writeTree(filestore, { 'ab/added-by-the-erp': 'x' });
    expect(await restore(context)).to.have.property('outcome', 'done');
    expect(readTree(filestore)).to.deep.equal(ATTACHMENTS);
  });

  it('restores a backup .zip without manifest, saying the version is not checked', async () => {
    const { context, lines, filestore } = fetched(backupZip('nomanifest.zip', { manifest: null }));
    expect(await restore(context)).to.deep.include({ outcome: 'done' });
    expect(lines[0]).to.equal('the input is an ERP backup .zip: dump.sql, filestore/ (2 file(s)); no manifest.json (the ERP version is not checked)');
    expect(readTree(filestore)).to.deep.equal(ATTACHMENTS);
  });

  it("fails without a retry when the manifest's version is not the origin, or it is not JSON, restoring nothing", async () => {
    const older = fetched(backupZip('older.zip', { manifest: { ...MANIFEST, major_version: '15.0', version: '15.0' } }));
    expect(failure(await restore(older.context))).to.equal(
      'restore: the backup is of a 15.0 database, but this migration starts from 16.0: create a migration from 15.0, or give it a backup of the 16.0 database',
    );
    expect(await exists(work)).to.equal(false);
    expect(existsSync(older.filestore)).to.equal(false);
    expect(existsSync(backupDumpFile(older.context.paths.input))).to.equal(false);
    const damaged = fetched(backupZip('damaged.zip', { manifest: '{"version": "16.0"' }));
    expect(failure(await restore(damaged.context))).to.match(/^restore: the input \.zip was refused: its manifest\.json is not valid JSON \(.+\): the backup is damaged or was not made by the ERP$/);
  });

  it('refuses a zip without dump.sql, naming what it holds', async () => {
    const { context } = fetched(backupZip('nodump.zip', { dump: false, files: { 'acme.dump': 'x', 'filestore/ab/ab12': 'y' } }));
    expect(failure(await restore(context))).to.equal(
      "restore: the input is a .zip without dump.sql at its top (it holds acme.dump, filestore/ (1 file(s)), manifest.json): give the ERP's own backup .zip (dump.sql, manifest.json, filestore/), or the dump itself",
    );
    expect(await exists(work)).to.equal(false);
  });

  describe('a dump.sql that expands without bound (issue 24, finding 6)', () => {
    /** A deflated zip of `sources` built in memory by the test, as an attacker would. */
    async function deflatedZip(name: string, sources: ZipSource[]): Promise<string> {
      const out = createWriteStream(join(dir, name));
      await writeZip(out, sources);
      out.end();
      await finished(out);
      return join(dir, name);
    }
    const manifest = (): ZipSource => ({ name: 'manifest.json', data: chunks(Buffer.from(JSON.stringify(MANIFEST))) });
    /** The bomb is refused without a retry, nothing restored, the uploaded zip kept whole and no extracted byte left beside it. */
    async function expectRefused(zip: string, message: RegExp, options: Partial<StepContextOptions> = {}): Promise<void> {
      const { context } = fetched(zip, upload(null), undefined, options);
      const error = failure(await restore(context));
      expect(error).to.match(message);
      expect(readdirSync(context.paths.input), 'the uploaded zip stays, no dump.sql or dump.sql.part').to.deep.equal(['dump']);
      expect(statSync(inputDumpFile(context.paths.input)).size).to.equal(statSync(zip).size);
      expect(await exists(work)).to.equal(false);
    }

    it('refuses a small zip whose dump.sql inflates past 100 times its size (FORJA_FILESTORE_MAX_RATIO), before writing it', async () => {
      const zip = await deflatedZip('bomb.zip', [manifest(), { name: 'dump.sql', data: zeros(200 * MiB) }]);
      expect(statSync(zip).size, 'a small zip').to.be.below(MiB);
      await expectRefused(
        zip,
        /^restore: the input \.zip was refused: its dump\.sql would expand to at least 200 MiB from \d+(\.\d)? KiB, more than 100 times its size \(FORJA_FILESTORE_MAX_RATIO\): .*; nothing of it was kept$/,
      );
    });

    it('refuses a dump.sql past FORJA_FILESTORE_MAX_BYTES, and one that inflates past the size the zip declares', async () => {
      const big = await deflatedZip('big.zip', [manifest(), { name: 'dump.sql', data: zeros(10 * MiB) }]);
      await expectRefused(big, /^restore: the input \.zip was refused: its dump\.sql would expand to more than 5 MiB \(FORJA_FILESTORE_MAX_BYTES\); nothing of it was kept$/, {
        filestoreLimits: { maxBytes: 5 * MiB, maxFiles: 1000, maxRatio: 100 },
      });
      const liar = await deflatedZip('liar.zip', [{ name: 'dump.sql', data: zeros(200 * MiB) }]);
      const bytes = readFileSync(liar);
      bytes.writeUInt32LE(1000, bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24); // uncompressed size: small enough for every limit
      writeFileSync(liar, bytes);
      await expectRefused(liar, /^restore: the input \.zip was refused: too many bytes in the stream\. expected 1000\. got at least \d+$/);
    });
  });

  it('refuses a ../ entry and a symbolic link in filestore/, writing nothing outside and keeping nothing of it', async () => {
    mkdirSync(join(dir, 'evil'));
    writeFileSync(join(dir, 'evil', 'escape.txt'), 'pwned');
    copyFileSync(plainDump, join(dir, 'evil', 'dump.sql'));
    bsdtar(['-c', '-P', '--format', 'zip', '-s', ',^escape,filestore/../../escape,', '-f', join(dir, 'climbing.zip'), '-C', join(dir, 'evil'), 'dump.sql', 'escape.txt']);
    const climbing = fetched(join(dir, 'climbing.zip'));
    expect(failure(await restore(climbing.context))).to.equal('restore: the input .zip was refused: invalid relative path: filestore/../../escape.txt');
    expect(existsSync(join(climbing.context.paths.root, 'work', 'escape.txt'))).to.equal(false);

    const folder = join(dir, 'links-src');
    writeTree(folder, { 'filestore/ab/ab12': 'invoice.pdf' });
    copyFileSync(plainDump, join(folder, 'dump.sql'));
    symlinkSync('/etc/hostname', join(folder, 'filestore', 'ab', 'cd34'));
    bsdtar(['-c', '--format', 'zip', '-f', join(dir, 'links.zip'), '-C', folder, 'dump.sql', 'filestore']);
    const linked = fetched(join(dir, 'links.zip'));
    writeTree(linked.filestore, { kept: 'the filestore before' });
    expect(failure(await restore(linked.context))).to.equal(
      "restore: the backup's filestore/ was refused: filestore/ab/cd34 is a symbolic link; a filestore holds only files and folders; nothing of it was kept",
    );
    expect(readTree(linked.filestore), 'the working filestore as it was').to.deep.equal({ kept: 'the filestore before' });
    expect(readdirSync(linked.context.paths.filestore)).to.deep.equal([work]);
    expect(await exists(work)).to.equal(false);
  });

  it("unpacks a filestore archive uploaded beside the backup on top of the backup's filestore/", async () => {
    writeTree(join(dir, 'extra'), { 'filestore/cd/cd34': 'logo, newer', 'filestore/ef/ef56': 'contract.pdf' });
    bsdtar(['-c', '-z', '-f', join(dir, 'extra.tar.gz'), '-C', join(dir, 'extra'), 'filestore']);
    const { context, lines, filestore } = fetched(backupZip('with-archive.zip'), upload('extra.tar.gz'), join(dir, 'extra.tar.gz'));
    expect(await restore(context)).to.have.nested.property('facts.filestoreFiles', 3);
    expect(readTree(filestore)).to.deep.equal({ 'ab/ab12': 'invoice.pdf', 'cd/cd34': 'logo, newer', 'ef/ef56': 'contract.pdf' });
    expect(lines).to.include(`working filestore ${filestore} rebuilt: 3 file(s) (2 from the backup's filestore/, then 2 from the uploaded filestore archive)`);
    expect(readdirSync(context.paths.filestore), 'no staging folder left').to.deep.equal([work]);
  });

  it('restores a custom dump with its uploaded filestore .zip (a database-named folder stripped); without one the working filestore starts empty', async () => {
    writeTree(join(dir, 'fs'), prefixed('acme_prod/', ATTACHMENTS));
    bsdtar(['-c', '--format', 'zip', '-f', join(dir, 'fs.zip'), '-C', join(dir, 'fs'), 'acme_prod']);
    const withArchive = fetched(customDump, upload('fs.zip'), join(dir, 'fs.zip'));
    expect(await restore(withArchive.context)).to.deep.equal({ outcome: 'done', facts: { format: 'custom', database: work, filestoreFiles: 2 } });
    expect(readTree(withArchive.filestore)).to.deep.equal(ATTACHMENTS);
    expect(withArchive.lines).to.include(`working filestore ${withArchive.filestore} rebuilt: 2 file(s) (2 from the uploaded filestore archive)`);

    const bare = fetched(customDump);
    writeTree(bare.filestore, { stale: 'left by an earlier run' });
    expect(await restore(bare.context)).to.have.nested.property('facts.filestoreFiles', 0);
    expect(readTree(bare.filestore)).to.deep.equal({});
    expect(bare.lines).to.include(`the input has no filestore: the working filestore ${bare.filestore} starts empty`);
  });

  it('fails without a retry on an uploaded filestore archive holding a link; rejects when the archive fetch should have copied is missing', async () => {
    mkdirSync(join(dir, 'linkfs', 'ab'), { recursive: true });
    symlinkSync('/etc/hostname', join(dir, 'linkfs', 'ab', 'ab12'));
    bsdtar(['-c', '-f', join(dir, 'linkfs.tar'), '-C', join(dir, 'linkfs'), 'ab']);
    const linked = fetched(customDump, upload('linkfs.tar'), join(dir, 'linkfs.tar'));
    expect(failure(await restore(linked.context))).to.equal(
      'restore: the uploaded filestore archive was refused: ab/ab12 is a symbolic link; a filestore holds only files and folders; nothing of it was kept',
    );
    expect(await exists(work)).to.equal(false);
    const missing = fetched(customDump, upload('fs.zip'));
    const error = await restore(missing.context).then(
      () => expect.fail('restore should have thrown'),
      (caught: Error) => caught.message,
    );
    expect(error).to.equal(`the uploaded filestore archive fs.zip is not in ${missing.context.paths.input}: run the migration again from fetch`);
  });
});

const MiB = 2 ** 20;

async function* zeros(bytes: number): AsyncGenerator<Uint8Array> {
  const chunk = Buffer.alloc(MiB);
  for (let left = bytes; left > 0; left -= MiB) yield left >= MiB ? chunk : chunk.subarray(0, left);
}

async function* chunks(...buffers: Buffer[]): AsyncGenerator<Uint8Array> {
  yield* buffers;
}

function prefixed(prefix: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([path, text]) => [`${prefix}${path}`, text]));
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** Every file below `root` by its relative path, with its text. */
function readTree(root: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) Object.assign(files, readTree(root, path));
    else files[path] = readFileSync(join(root, path), 'utf8');
  }
  return files;
}
