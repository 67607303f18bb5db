import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { PadronArchiveError } from '#services/padron/archive/padronArchiveError.ts';
import { openPadronEntries } from '#services/padron/archive/openPadronEntries.ts';
import { peekLines, readLineBatches } from '#services/padron/parse/lines.ts';
import { writeZip } from '../../../scripts/padron/generator/zipWriter.ts';
import { asAsync } from '../../../scripts/padron/generator/lineFile.ts';
import { failureOf, readEntries } from '#test/padron/fixtures/readEntries.ts';
import { useTempDir } from '#test/padron/fixtures/tempDir.ts';

const ARBA_LINES = 'P;26032019;01042019;30042019;20000000028;D;N;N;6,00;25;\r\nP;26032019;01042019;30042019;20000021742;D;S;N;0,00;01;\r\n';
const AGIP_LINE = '22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;CABAÑA\r\n';

async function zipFile(path: string, entries: Array<{ name: string; content: string }>): Promise<void> {
  const out = createWriteStream(path);
  await writeZip(out, entries.map(({ name, content }) => ({ name, data: asAsync([Buffer.from(content, 'latin1')]) })));
  out.end();
  await finished(out);
}

describe('padrón archives (openPadronEntries)', () => {
  const dir = useTempDir('archive');

  it('passes a plain text file through under its own name', async () => {
    const path = join(dir.path, 'ARDJU008042019.TXT');
    await writeFile(path, Buffer.from(AGIP_LINE, 'latin1'));
    expect(await readEntries(path)).to.deep.equal([{ name: 'ARDJU008042019.TXT', content: AGIP_LINE }]);
  });

  it('decides by magic bytes, not extension: a text named .zip is text, a ZIP named .TXT is a ZIP', async () => {
    const text = join(dir.path, 'padron.zip');
    await writeFile(text, ARBA_LINES);
    expect(await readEntries(text)).to.deep.equal([{ name: 'padron.zip', content: ARBA_LINES }]);
    const zip = join(dir.path, 'PadronRGSPer042019.TXT');
    await zipFile(zip, [{ name: 'PadronRGSPer042019.TXT', content: ARBA_LINES }]);
    expect(await readEntries(zip)).to.deep.equal([{ name: 'PadronRGSPer042019.TXT', content: ARBA_LINES }]);
  });

  it('streams the .txt and .csv entries of a ZIP, skipping the rest', async () => {
    const path = join(dir.path, 'PadronRGSPer042019.zip');
    await zipFile(path, [
      { name: 'LEEME.pdf', content: '%PDF-1.4' },
      { name: 'PadronRGSPer042019.TXT', content: ARBA_LINES },
      { name: '__MACOSX/._PadronRGSPer042019.TXT', content: 'junk' },
      { name: 'otro.csv', content: AGIP_LINE },
    ]);
    expect(await readEntries(path)).to.deep.equal([
      { name: 'PadronRGSPer042019.TXT', content: ARBA_LINES },
      { name: 'otro.csv', content: AGIP_LINE },
    ]);
  });

  it('moves on to the next ZIP entry when one is given up unread (a refused layout)', async () => {
    const path = join(dir.path, 'ACREDITAN.zip');
    await zipFile(path, [
      { name: 'archivocoefrg116.TXT', content: 'x'.repeat(200_000) },
      { name: 'ACREDITAN.TXT', content: AGIP_LINE },
    ]);
    const read: string[] = [];
    for await (const entry of openPadronEntries(path)) {
      const { batches } = await peekLines(readLineBatches(entry.stream), 30);
      if (entry.name.startsWith('archivo')) {
        await batches.return(undefined);
        continue;
      }
      for await (const batch of batches) read.push(...batch.lines);
    }
    expect(read).to.deep.equal([AGIP_LINE.trimEnd()]);
  });

  it('refuses a ZIP without a text file, naming its entries', async () => {
    const path = join(dir.path, 'x.zip');
    await zipFile(path, [{ name: 'LEEME.pdf', content: '%PDF' }]);
    const error = await failureOf(readEntries(path));
    expect(error).to.be.instanceOf(PadronArchiveError);
    expect(error.message).to.equal(`'${path}' holds no .txt or .csv file (entries: LEEME.pdf)`);
  });

  it('refuses a damaged ZIP', async () => {
    const path = join(dir.path, 'x.zip');
    await writeFile(path, Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(100, 7)]));
    expect((await failureOf(readEntries(path))).message).to.match(/^'.*x\.zip' is not a readable ZIP archive: /);
  });

  const unsupported: Array<[string, Buffer, string]> = [
    ['a gzip file', gzipSync(ARBA_LINES), 'a gzip file'],
    ['a binary file', Buffer.from([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x10, 0x11, 0x41, 0x42]), 'a binary file'],
    ['UTF-16 text', Buffer.from('\ufeffCUIT', 'utf16le'), 'UTF-16 text'],
  ];
  for (const [what, bytes, described] of unsupported) {
    it(`refuses ${what} by its magic bytes`, async () => {
      const path = join(dir.path, 'padron.txt');
      await writeFile(path, bytes);
      const error = await failureOf(readEntries(path));
      expect(error).to.be.instanceOf(PadronArchiveError);
      expect(error.message).to.equal(`'${path}' is ${described}, not a padrón text file or a ZIP or RAR archive`);
    });
  }

  it('tolerates the NUL bytes FORMATS.md reports in text files', async () => {
    const path = join(dir.path, 'ARDJU.TXT');
    await writeFile(path, `${AGIP_LINE}\0\0`, 'latin1');
    expect(await readEntries(path)).to.have.length(1);
  });
});
