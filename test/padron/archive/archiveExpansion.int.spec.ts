import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { expect } from 'chai';
import { PadronArchiveError } from '#services/padron/archive/padronArchiveError.ts';
import { PADRON_EXPANSION_LIMITS } from '#services/padron/archive/expansionLimits.ts';
import { openPadronEntries } from '#services/padron/archive/openPadronEntries.ts';
import { ImportableEntries } from '#services/padron/import/importableEntries.ts';
import { type ZipSource, writeZip } from '../../../scripts/padron/generator/zipWriter.ts';
import { failureOf, readEntries } from '#test/padron/fixtures/readEntries.ts';
import { installed, standIn, withOnly } from '#test/padron/fixtures/rarTools.ts';
import { storedRar4 } from '#test/padron/fixtures/storedRar4.ts';
import { useTempDir } from '#test/padron/fixtures/tempDir.ts';

const MiB = 2 ** 20;
const AGIP_LINE = '22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;CABANA\r\n';

async function* nuls(bytes: number): AsyncGenerator<Uint8Array> {
  const chunk = Buffer.alloc(MiB);
  for (let left = bytes; left > 0; left -= MiB) yield left >= MiB ? chunk : chunk.subarray(0, left);
}

async function* text(content: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(content, 'latin1');
}

async function zipFile(path: string, sources: ZipSource[]): Promise<void> {
  const out = createWriteStream(path);
  await writeZip(out, sources);
  out.end();
  await finished(out);
}

/** Milliseconds `promise` takes to settle. */
async function timed<T>(promise: Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await promise;
  return { result, ms: performance.now() - started };
}

describe('padrón archives that expand beyond reason (issue 10, item 14)', function () {
  this.timeout(60_000);
  const dir = useTempDir('expansion');

  it('refuses a ZIP entry of 300 MB of NULs before inflating it, in well under a second', async () => {
    // The audit's file: a NUL-only entry (~300 KB deflated) that an import inflated for 47 s.
    const path = join(dir.path, 'ARDJU008042019.zip');
    await zipFile(path, [{ name: 'ARDJU008042019.TXT', data: nuls(300 * MiB) }]);
    const { result: error, ms } = await timed(failureOf(readEntries(path)));
    expect(error).to.be.instanceOf(PadronArchiveError);
    expect(error.message).to.match(
      /^'.*ARDJU008042019\.zip' refused: 'ARDJU008042019\.TXT' would expand to 300 MiB from \d+(\.\d)? KiB \(\d{3,4} times\); a padrón compresses about 10 times, so over 100 times is no padrón \(all NULs, or an archive bomb\)$/,
    );
    expect(ms).to.be.below(1000);
    // What the import does with it: the same refusal, before a line is parsed.
    const entries = new ImportableEntries(path, { state: 'C' });
    expect((await failureOf(entries.next())).message).to.equal(error.message);
    await entries.close();
  });

  it('refuses entries that each look modest but together expand beyond reason', async () => {
    const path = join(dir.path, 'ARDJU008042019.zip');
    const sources = Array.from({ length: 4 }, (_, i) => ({ name: `part${i}.txt`, data: nuls(15 * MiB) }));
    await zipFile(path, sources);
    const error = await failureOf(readEntries(path));
    expect(error.message).to.match(/^'.*' refused: its entries up to 'part1\.txt' would expand to 30 MiB from an archive of \d+(\.\d)? KiB \(\d+ times\); /);
  });

  it('refuses an entry that inflates past the size its central directory declares', async () => {
    const path = join(dir.path, 'ARDJU008042019.zip');
    await zipFile(path, [{ name: 'ARDJU008042019.TXT', data: nuls(32 * MiB) }]);
    const zip = await readFile(path);
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(1000, central + 24); // uncompressed size: a lie that passes the ratio check
    await writeFile(path, zip);
    const { result: error, ms } = await timed(failureOf(readEntries(path)));
    expect(error.message).to.match(/too many bytes in the stream\. expected 1000\. got at least \d+/);
    expect(ms).to.be.below(1000);
  });

  it('reads a padrón that compresses like one, and a small file of repeated lines whatever its ratio', async () => {
    // 300,000 lines of varied CUITs and rates: 20 MiB, over the floor, deflating about as much as a real padrón.
    let seed = 7;
    const next = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const lines = Array.from({ length: 300_000 }, () => `22112018;01122018;31122018;${20_000_000_000 + next(9_999_999_999)};D;S;N;${next(9)},${next(99)};0,00;00;00;CABANA\r\n`);
    const padron = join(dir.path, 'ARDJU008042019.zip');
    await zipFile(padron, [{ name: 'ARDJU008042019.TXT', data: text(lines.join('')) }]);
    expect((await readEntries(padron))[0]?.content.length).to.equal(lines.join('').length);

    const repeated = join(dir.path, 'ARDJU008052019.zip');
    await zipFile(repeated, [{ name: 'ARDJU008052019.TXT', data: text(AGIP_LINE.repeat(100_000)) }]);
    expect((await readEntries(repeated))[0]?.content.length).to.equal(AGIP_LINE.length * 100_000);
  });

  it('refuses a RAR entry over the size limit before bsdtar inflates it', async function () {
    if ((await installed('bsdtar')) === null) this.skip();
    const path = join(dir.path, 'ARDJU008042019.rar');
    await writeFile(path, storedRar4([{ name: 'ARDJU008042019.TXT', data: Buffer.from(AGIP_LINE.repeat(200), 'latin1') }]));
    const limits = { ...PADRON_EXPANSION_LIMITS, maxEntryBytes: 10_000 };
    const error = await failureOf(readAll(path, limits));
    expect(error).to.be.instanceOf(PadronArchiveError);
    expect(error.message).to.equal(`'${path}' refused: 'ARDJU008042019.TXT' would expand to 13.5 KiB, more than the 9.8 KiB a padrón file may have`);
  });

  it('refuses a RAR whose listed entries expand beyond reason before unar extracts any', async () => {
    const path = join(dir.path, 'ARDJU008042019.rar');
    await writeFile(path, storedRar4([{ name: 'placeholder', data: Buffer.from('x') }]));
    const calls = join(dir.path, 'unar-calls.log');
    await standIn(dir.path, 'lsar', `echo '${JSON.stringify({ lsarContents: [{ XADFileName: 'ARDJU008042019.TXT', XADIndex: 0, XADFileSize: 300 * MiB }] })}'`);
    await standIn(dir.path, 'unar', `echo "$@" >> '${calls}'`);
    await withOnly(dir.path, [], async () => {
      const error = await failureOf(readEntries(path));
      expect(error.message).to.match(/^'.*' refused: its entries up to 'ARDJU008042019\.TXT' would expand to 300 MiB from an archive of \d+ bytes \(\d+ times\); /);
    });
    expect(await readFile(calls, 'utf8').catch(() => 'never called')).to.equal('never called');
  });
});

async function readAll(path: string, limits: typeof PADRON_EXPANSION_LIMITS): Promise<void> {
  for await (const entry of openPadronEntries(path, limits)) entry.stream.resume();
}
