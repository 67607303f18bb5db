import { constants } from 'node:fs';
import { access, chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { PadronArchiveError } from '#services/padron/archive/padronArchiveError.ts';
import { failureOf, readEntries } from '#test/padron/fixtures/readEntries.ts';
import { storedRar4 } from '#test/padron/fixtures/storedRar4.ts';
import { useTempDir } from '#test/padron/fixtures/tempDir.ts';

const AGIP_TEXT = Buffer.from('22112018;01122018;31122018;20000163989;D;S;N;0,00;0,00;00;00;CABAÑA\r\n'.repeat(1000), 'latin1');

async function installed(command: string): Promise<string | null> {
  for (const dir of ['/usr/bin', '/usr/local/bin', '/bin']) {
    const path = join(dir, command);
    if (await access(path, constants.X_OK).then(() => true, () => false)) return path;
  }
  return null;
}

/** Runs `body` with PATH holding only the named commands, so the extractor in use is the one wanted. */
async function withOnly(dir: string, commands: string[], body: () => Promise<void>): Promise<void> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true }); // may already hold a stand-in extractor
  for (const command of commands) {
    const path = await installed(command);
    if (path !== null) await symlink(path, join(bin, command));
  }
  const saved = process.env['PATH'];
  process.env['PATH'] = bin;
  try {
    await body();
  } finally {
    process.env['PATH'] = saved;
  }
}

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

  it('refuses a truncated archive instead of reading a short padrón', async function () {
    if ((await installed('bsdtar')) === null) this.skip();
    const archive = storedRar4([{ name: 'ARDJU008042019.TXT', data: AGIP_TEXT }]);
    const path = join(dir.path, 'ARDJU008042019.rar');
    await writeFile(path, archive.subarray(0, archive.length - 5000));
    await withOnly(dir.path, ['bsdtar'], async () => {
      const error = await failureOf(readEntries(path));
      expect(error).to.be.instanceOf(PadronArchiveError);
      expect(error.message).to.match(/^bsdtar cannot list '.*ARDJU008042019\.rar' \(exit 1\): .*Truncated/);
    });
  });

  it('fails the entry’s stream, with the extractor’s message, when extraction fails midway', async () => {
    // A stand-in extractor that lists the entry, writes part of it and fails, as one does on bad data.
    const bin = join(dir.path, 'bin');
    await mkdir(bin);
    const fake = join(bin, 'bsdtar');
    await writeFile(fake, '#!/bin/sh\nif [ "$1" = "-tf" ]; then echo ARDJU008042019.TXT; exit 0; fi\nprintf partial; echo "Damaged RAR data" >&2; exit 1\n');
    await chmod(fake, 0o755);
    const path = join(dir.path, 'ARDJU008042019.rar');
    await writeFile(path, storedRar4([{ name: 'ARDJU008042019.TXT', data: AGIP_TEXT }]));
    await withOnly(dir.path, [], async () => {
      const error = await failureOf(readEntries(path));
      expect(error).to.be.instanceOf(PadronArchiveError);
      expect(error.message).to.equal(`bsdtar could not extract 'ARDJU008042019.TXT' from '${path}' (exit 1): Damaged RAR data`);
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
