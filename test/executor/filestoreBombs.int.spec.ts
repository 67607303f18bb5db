import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { extractFilestore } from '#services/executor/database/filestore.ts';
import { DEFAULT_FILESTORE_LIMITS, type FilestoreLimits } from '#services/executor/database/filestoreLimits.ts';
import { runDir } from '#test/support/runDir.ts';
import { type ZipSource, writeZip } from '../../scripts/padron/generator/zipWriter.ts';
import { memoryLog } from './fixtures/databaseFixtures.ts';
import { tarOf } from './fixtures/tarOf.ts';

const MiB = 2 ** 20;
const LOW: FilestoreLimits = { maxBytes: 50 * MiB, maxFiles: 1000, maxRatio: 100 };

async function* zeros(bytes: number): AsyncGenerator<Uint8Array> {
  const chunk = Buffer.alloc(MiB);
  for (let left = bytes; left > 0; left -= MiB) yield left >= MiB ? chunk : chunk.subarray(0, left);
}

async function zipFile(path: string, sources: Iterable<ZipSource>): Promise<void> {
  const out = createWriteStream(path);
  await writeZip(out, sources);
  out.end();
  await finished(out);
}

describe('executor: filestore archives that expand without bound are refused (issue 10, item 5)', function () {
  this.timeout(60_000);
  let dir: string;
  let target: string;
  let log: ReturnType<typeof memoryLog>;

  beforeEach(() => {
    dir = runDir('filestore-bombs');
    target = join(dir, 'data', 'filestore', 'forja_acme');
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'kept'), 'the previous filestore');
    log = memoryLog();
  });

  /** Extracts `archive` expecting a refusal matching `message`; the old filestore stays and nothing else is left. */
  async function expectRefused(archive: string, limits: FilestoreLimits, message: RegExp): Promise<number> {
    const started = performance.now();
    const error = await extractFilestore(archive, target, log.stream, limits).then(
      () => expect.fail('the archive was extracted'),
      (reason: unknown) => reason as Error,
    );
    const ms = performance.now() - started;
    expect(error.message).to.match(message);
    expect(log.text()).to.include(error.message);
    expect(readdirSync(target)).to.deep.equal(['kept']);
    expect(existsSync(`${target}.partial`), 'half an extraction left behind').to.equal(false);
    return ms;
  }

  it('refuses a 200 MB zip bomb with the default limits, before writing it, in well under a second', async () => {
    // The audit's file, a tenth the size: a zip of zeros that became a file of that size in the filestore.
    const archive = join(dir, 'filestore.zip');
    await zipFile(archive, [{ name: 'filestore/ab/ab12', data: zeros(200 * MiB) }]);
    const ms = await expectRefused(
      archive,
      DEFAULT_FILESTORE_LIMITS,
      /^cannot extract filestore archive .*filestore\.zip: it would expand to at least 200 MiB from \d+(\.\d)? KiB, more than 100 times its size \(FORJA_FILESTORE_MAX_RATIO\): /,
    );
    expect(ms).to.be.below(1000);
  });

  it('refuses a tar.gz past FORJA_FILESTORE_MAX_BYTES, and a plain tar too, which no ratio catches', async () => {
    const files = [0, 1, 2].map((i) => ({ name: `ab/ab${i}`, data: Buffer.alloc(2 * MiB, i) }));
    const limits = { ...LOW, maxBytes: 5 * MiB };
    writeFileSync(join(dir, 'fs.tar'), await tarOf(files));
    await expectRefused(join(dir, 'fs.tar'), limits, /^cannot extract filestore archive .*fs\.tar: it would expand to more than 5 MiB \(FORJA_FILESTORE_MAX_BYTES\)$/);
    writeFileSync(join(dir, 'fs.tar.gz'), gzipSync(await tarOf(files)));
    await expectRefused(join(dir, 'fs.tar.gz'), limits, /FORJA_FILESTORE_MAX_BYTES/);
  });

  it('refuses an archive of more files than FORJA_FILESTORE_MAX_FILES', async () => {
    const archive = join(dir, 'many.zip');
    const empty = async function* (): AsyncGenerator<Uint8Array> {};
    await zipFile(archive, Array.from({ length: 1500 }, (_, i) => ({ name: `ab/${i}`, data: empty() })));
    await expectRefused(archive, LOW, /^cannot extract filestore archive .*many\.zip: it holds more than 1000 files and folders \(FORJA_FILESTORE_MAX_FILES\)$/);
  });

  it('refuses a zip entry that inflates past the size its central directory declares', async () => {
    const archive = join(dir, 'liar.zip');
    await zipFile(archive, [{ name: 'ab/ab12', data: zeros(200 * MiB) }]);
    const zip = readFileSync(archive);
    zip.writeUInt32LE(1000, zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24); // uncompressed size: small enough for every limit
    writeFileSync(archive, zip);
    const ms = await expectRefused(archive, DEFAULT_FILESTORE_LIMITS, /too many bytes in the stream\. expected 1000\. got at least \d+/);
    expect(ms).to.be.below(1000);
  });

  it('never reads a file of the host into the filestore (a gzipped mtree spec, which bsdtar would follow)', async () => {
    const secret = join(dir, 'secret');
    writeFileSync(secret, 'the executor host’s secret');
    writeFileSync(join(dir, 'fs.tar.gz'), gzipSync(`#mtree\n./ab/ab12 type=file contents=${secret}\n`));
    await expectRefused(join(dir, 'fs.tar.gz'), DEFAULT_FILESTORE_LIMITS, /^cannot extract filestore archive .*fs\.tar\.gz: it is not a readable gzip-compressed tar archive: /);
  });

  it('refuses what is no archive, an absolute path, and a hard link', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'just text');
    await expectRefused(join(dir, 'notes.txt'), LOW, /notes\.txt: it is not a \.zip, \.tar or \.tar\.gz archive$/);
    writeFileSync(join(dir, 'abs.tar'), await tarOf([{ name: '/etc/cron.d/forja', data: Buffer.from('* * * * * root id') }]));
    await expectRefused(join(dir, 'abs.tar'), LOW, /abs\.tar: \/etc\/cron\.d\/forja is an absolute path$/);
    writeFileSync(join(dir, 'link.tar'), await tarOf([{ name: 'ab/ab12', type: 'link', linkname: '/etc/shadow' }]));
    await expectRefused(join(dir, 'link.tar'), LOW, /link\.tar: ab\/ab12 is a hard link; a filestore holds only files and folders$/);
  });

  it('extracts a small archive that compresses far beyond the ratio: below 64 MiB the ratio is not judged', async () => {
    const archive = join(dir, 'filestore.zip');
    await zipFile(archive, [{ name: 'filestore/ab/ab12', data: zeros(10 * MiB) }]);
    expect(await extractFilestore(archive, target, log.stream)).to.deep.equal({ files: 1 });
    expect(readFileSync(join(target, 'ab', 'ab12')).length).to.equal(10 * MiB);
  });
});
