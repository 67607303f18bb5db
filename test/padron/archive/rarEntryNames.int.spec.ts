import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { PadronArchiveError } from '#services/padron/archive/padronArchiveError.ts';
import { ImportableEntries } from '#services/padron/import/importableEntries.ts';
import { failureOf, readEntries } from '#test/padron/fixtures/readEntries.ts';
import { installed, standIn, withOnly } from '#test/padron/fixtures/rarTools.ts';
import { storedRar4 } from '#test/padron/fixtures/storedRar4.ts';
import { useTempDir } from '#test/padron/fixtures/tempDir.ts';

const AGIP_TEXT = Buffer.from('22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;CABAÑA\r\n'.repeat(50), 'latin1');

/** Reads every importable entry of a CABA file to its end: what `padron import --state C` does before loading. */
async function importable(path: string): Promise<{ imported: string[]; skipped: string[] }> {
  const entries = new ImportableEntries(path, { state: 'C' });
  for (let entry = await entries.next(); entry; entry = await entries.next()) {
    for await (const batch of entry.batches) void batch;
  }
  return { imported: entries.imported, skipped: entries.skipped };
}

describe('padrón RAR entry names are data, never command-line options (issue 10, item 2)', () => {
  const dir = useTempDir('rar-names');

  it('reads an entry named --use-compress-program=… as a file: bsdtar never runs it, and the real padrón beside it imports', async function () {
    if ((await installed('bsdtar')) === null) this.skip();
    // The audit's attack: `bsdtar -xOf archive <name>` took this name for an option and ran the program.
    const marker = join(dir.path, 'the-entry-name-ran');
    const evil = `--use-compress-program=/bin/sh -c ": > ${marker}" x.txt`;
    const path = join(dir.path, 'ARDJU008042019.rar');
    await writeFile(path, storedRar4([{ name: evil, data: Buffer.from('not;a;padron\r\n') }, { name: 'ARDJU008042019.TXT', data: AGIP_TEXT }]));

    const entries = await readEntries(path);
    expect(existsSync(marker), 'the entry name was run as a command').to.equal(false);
    expect(entries).to.deep.equal([
      { name: evil, content: 'not;a;padron\r\n' },
      { name: 'ARDJU008042019.TXT', content: AGIP_TEXT.toString('latin1') },
    ]);
    const { imported, skipped } = await importable(path);
    expect(imported).to.deep.equal(['ARDJU008042019.TXT']);
    expect(skipped).to.have.length(1);
    expect(skipped[0]).to.include(evil);
  });

  describe('through unar (a stand-in that records how it is called)', () => {
    const evil = '-o /etc x.txt';
    /** lsar lists the given entries; unar logs its arguments and writes entry <index>'s content. */
    async function standIns(entries: Array<{ name: string; size: number; content: string }>): Promise<string> {
      const log = join(dir.path, 'unar-calls.log');
      const listing = JSON.stringify({ lsarContents: entries.map(({ name, size }, index) => ({ XADFileName: name, XADIndex: index, XADFileSize: size })) });
      await writeFile(join(dir.path, 'listing.json'), listing);
      await standIn(dir.path, 'lsar', `/bin/cat '${join(dir.path, 'listing.json')}'`);
      const cases = entries.map(({ content }, index) => `${index}) printf '%s' '${content}' ;;`).join('\n');
      await standIn(dir.path, 'unar', `echo "$@" >> '${log}'\nfor last; do :; done\ncase "$last" in\n${cases}\nesac`);
      return log;
    }

    it('asks unar for entries by index: no entry name reaches its command line', async () => {
      const path = join(dir.path, 'ARDJU008042019.rar');
      await writeFile(path, storedRar4([{ name: 'placeholder', data: Buffer.from('x') }]));
      const agip = '22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;CABANA';
      const log = await standIns([
        { name: evil, size: 4, content: 'a;b\n' },
        { name: 'ARDJU008042019.TXT', size: agip.length, content: agip },
      ]);
      await withOnly(dir.path, [], async () => {
        expect(await readEntries(path)).to.deep.equal([
          { name: evil, content: 'a;b\n' },
          { name: 'ARDJU008042019.TXT', content: agip },
        ]);
      });
      expect((await readFile(log, 'utf8')).trimEnd().split('\n')).to.deep.equal([`-q -o - -i ${path} 0`, `-q -o - -i ${path} 1`]);
    });

    it('fails an entry whose bytes run past the size lsar listed', async () => {
      const path = join(dir.path, 'ARDJU008042019.rar');
      await writeFile(path, storedRar4([{ name: 'placeholder', data: Buffer.from('x') }]));
      await standIns([{ name: 'ARDJU008042019.TXT', size: 4, content: 'x'.repeat(1000) }]);
      await withOnly(dir.path, [], async () => {
        const error = await failureOf(readEntries(path));
        expect(error).to.be.instanceOf(PadronArchiveError);
        expect(error.message).to.equal(`unar wrote more of 'ARDJU008042019.TXT' than the 4 bytes lsar lists for it in '${path}'`);
      });
    });

    it('refuses an unreadable listing', async () => {
      const path = join(dir.path, 'ARDJU008042019.rar');
      await writeFile(path, storedRar4([{ name: 'placeholder', data: Buffer.from('x') }]));
      await standIn(dir.path, 'lsar', 'echo "{not json"');
      await standIn(dir.path, 'unar', 'exit 0');
      await withOnly(dir.path, [], async () => {
        expect((await failureOf(readEntries(path))).message).to.match(new RegExp(`^lsar's listing of '${path}' is not JSON: `));
      });
      await standIn(dir.path, 'lsar', 'echo "Could not open archive" >&2; exit 1');
      await withOnly(dir.path, [], async () => {
        expect((await failureOf(readEntries(path))).message).to.equal(`lsar cannot list '${path}' (exit 1): Could not open archive`);
      });
    });
  });
});
