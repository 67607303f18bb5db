import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { expect } from 'chai';
import { openPadronEntries } from '#services/padron/archive/openPadronEntries.ts';
import { PadronArchiveError } from '#services/padron/archive/padronArchiveError.ts';
import { failureOf, readEntries } from '#test/padron/fixtures/readEntries.ts';
import { installed, standIn, tarOf, withOnly } from '#test/padron/fixtures/rarTools.ts';
import { storedRar4 } from '#test/padron/fixtures/storedRar4.ts';
import { useTempDir } from '#test/padron/fixtures/tempDir.ts';

const AGIP_TEXT = Buffer.from('22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;CABAÑA\r\n'.repeat(1000), 'latin1');

describe('padrón RAR archives (AGIP ships RAR4)', () => {
  const dir = useTempDir('rar');

  for (const commands of [['bsdtar'], ['unar', 'lsar']]) {
    it(`streams the text entries of a RAR4 through ${commands[0]}`, async function () {
      for (const command of commands) if ((await installed(command)) === null) this.skip();
      const path = join(dir.path, 'ARDJU008042019.rar');
      await writeFile(path, storedRar4([
        { name: 'LEEME.DOC', data: Buffer.from('x') },
        { name: 'ARDJU008042019.TXT', data: AGIP_TEXT },
      ]));
      await withOnly(dir.path, commands, async () => {
        const entries = await readEntries(path);
        expect(entries.map((entry) => entry.name)).to.deep.equal(['ARDJU008042019.TXT']);
        expect(entries[0]?.content).to.equal(AGIP_TEXT.toString('latin1'));
      });
    });
  }

  it('moves on to the next entry when one is given up unread, though bsdtar reads them all in one stream', async function () {
    if ((await installed('bsdtar')) === null) this.skip();
    const path = join(dir.path, 'ACREDITAN.rar');
    await writeFile(path, storedRar4([
      { name: 'archivocoefrg116.TXT', data: Buffer.alloc(3 << 20, 'x') },
      { name: 'ARDJU008042019.TXT', data: AGIP_TEXT },
    ]));
    await withOnly(dir.path, ['bsdtar'], async () => {
      const read: string[] = [];
      for await (const entry of openPadronEntries(path)) {
        if (entry.name.startsWith('archivo')) entry.stream.destroy();
        else read.push((await buffer(entry.stream)).toString('latin1'));
      }
      expect(read).to.deep.equal([AGIP_TEXT.toString('latin1')]);
    });
  });

  it('refuses a truncated archive instead of reading a short padrón', async function () {
    if ((await installed('bsdtar')) === null) this.skip();
    const archive = storedRar4([{ name: 'ARDJU008042019.TXT', data: AGIP_TEXT }]);
    const path = join(dir.path, 'ARDJU008042019.rar');
    await writeFile(path, archive.subarray(0, archive.length - 5000));
    await withOnly(dir.path, ['bsdtar'], async () => {
      const error = await failureOf(readEntries(path));
      expect(error).to.be.instanceOf(PadronArchiveError);
      expect(error.message).to.equal(`bsdtar cannot read '${path}' (exit 1): the archive is damaged or truncated`);
    });
  });

  it('fails the entry’s stream, with the extractor’s message, when extraction fails midway', async () => {
    // A stand-in bsdtar that writes part of the entry's tar stream and fails, as one does on bad data.
    const partial = join(dir.path, 'partial.tar');
    await writeFile(partial, (await tarOf([{ name: 'ARDJU008042019.TXT', data: AGIP_TEXT }])).subarray(0, 20_000));
    await standIn(dir.path, 'bsdtar', `/bin/cat '${partial}'; echo "Damaged RAR data" >&2; exit 1`);
    const path = join(dir.path, 'ARDJU008042019.rar');
    await writeFile(path, storedRar4([{ name: 'ARDJU008042019.TXT', data: AGIP_TEXT }]));
    await withOnly(dir.path, [], async () => {
      const entries = openPadronEntries(path);
      const first = await entries.next();
      expect(first.done).to.equal(false);
      const error = await failureOf(buffer(first.value!.stream));
      expect(error).to.be.instanceOf(PadronArchiveError);
      expect(error.message).to.equal(`bsdtar cannot read '${path}' (exit 1): Damaged RAR data`);
      expect((await failureOf(entries.next())).message).to.equal(error.message);
    });
  });

  it('names the Debian packages to install when no extractor is there', async () => {
    const path = join(dir.path, 'ARDJU008042019.rar');
    await writeFile(path, storedRar4([{ name: 'ARDJU008042019.TXT', data: AGIP_TEXT }]));
    await withOnly(dir.path, [], async () => {
      const error = await failureOf(readEntries(path));
      expect(error).to.be.instanceOf(PadronArchiveError);
      expect(error.message).to.equal(`'${path}' is a RAR archive and no RAR extractor is installed: install Debian's libarchive-tools (bsdtar) or unar (apt-get install libarchive-tools)`);
    });
  });
});
