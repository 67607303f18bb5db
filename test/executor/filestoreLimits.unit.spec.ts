import { expect } from 'chai';
import { filestoreArchiveFormat } from '#services/executor/database/filestoreEntries.ts';
import { DEFAULT_FILESTORE_LIMITS, RATIO_FLOOR_BYTES, expansionRefusal, filestoreLimits, filestoreRefusal } from '#services/executor/database/filestoreLimits.ts';
import { safeEntryPath } from '#services/executor/database/safeEntryPath.ts';
import { loadExecutorSettings } from '#services/executor/executor.settings.ts';
import { ConfigError } from '#shared/config/config.ts';

const limits = { maxBytes: 1000 * RATIO_FLOOR_BYTES, maxFiles: 10, maxRatio: 100 };

describe('executor: filestore limits (issue 10, item 5)', () => {
  it('come from FORJA_FILESTORE_MAX_BYTES, _MAX_FILES and _MAX_RATIO: 50 GiB, 5 million, 100 by default', () => {
    expect(DEFAULT_FILESTORE_LIMITS).to.deep.equal({ maxBytes: 50 * 2 ** 30, maxFiles: 5_000_000, maxRatio: 100 });
    expect(filestoreLimits(loadExecutorSettings({}))).to.deep.equal(DEFAULT_FILESTORE_LIMITS);
    const set = loadExecutorSettings({ FORJA_FILESTORE_MAX_BYTES: '1048576', FORJA_FILESTORE_MAX_FILES: '20', FORJA_FILESTORE_MAX_RATIO: '5' });
    expect(filestoreLimits(set)).to.deep.equal({ maxBytes: 1_048_576, maxFiles: 20, maxRatio: 5 });
    expect(() => loadExecutorSettings({ FORJA_FILESTORE_MAX_BYTES: '0' })).to.throw(ConfigError, /FORJA_FILESTORE_MAX_BYTES/);
    expect(() => loadExecutorSettings({ FORJA_FILESTORE_MAX_RATIO: 'ten' })).to.throw(ConfigError, /FORJA_FILESTORE_MAX_RATIO/);
  });

  it('let an archive through up to each limit, and a small one whatever its ratio', () => {
    expect(filestoreRefusal({ entries: 10, bytes: limits.maxBytes }, limits.maxBytes, limits)).to.equal(undefined);
    expect(filestoreRefusal({ entries: 1, bytes: RATIO_FLOOR_BYTES }, 1, limits)).to.equal(undefined);
    expect(filestoreRefusal({ entries: 1, bytes: 2 * RATIO_FLOOR_BYTES }, (2 * RATIO_FLOOR_BYTES) / 100, limits)).to.equal(undefined);
  });

  it('refuse too many entries, too many bytes, and a ratio beyond the limit past 64 MiB', () => {
    expect(filestoreRefusal({ entries: 11, bytes: 0 }, 1, limits)).to.equal('it holds more than 10 files and folders (FORJA_FILESTORE_MAX_FILES)');
    expect(filestoreRefusal({ entries: 1, bytes: limits.maxBytes + 1 }, limits.maxBytes, limits)).to.equal('it would expand to more than 62.5 GiB (FORJA_FILESTORE_MAX_BYTES)');
    expect(filestoreRefusal({ entries: 1, bytes: 2 * RATIO_FLOOR_BYTES }, 2 ** 20, limits)).to.equal(
      'it would expand to at least 128 MiB from 1 MiB, more than 100 times its size (FORJA_FILESTORE_MAX_RATIO): an archive bomb, or files of one repeated byte',
    );
  });

  it("hold a backup's dump.sql to the bytes and the ratio alone, whatever the entry count", () => {
    expect(expansionRefusal(limits.maxBytes, 1, { ...limits, maxRatio: Number.MAX_SAFE_INTEGER })).to.equal(undefined);
    expect(expansionRefusal(RATIO_FLOOR_BYTES, 1, limits)).to.equal(undefined);
    expect(expansionRefusal(limits.maxBytes + 1, limits.maxBytes, limits)).to.equal('would expand to more than 62.5 GiB (FORJA_FILESTORE_MAX_BYTES)');
    expect(expansionRefusal(2 * RATIO_FLOOR_BYTES, 2 ** 20, limits)).to.match(/^would expand to at least 128 MiB from 1 MiB, more than 100 times its size \(FORJA_FILESTORE_MAX_RATIO\)/);
  });
});

describe('executor: where an archive entry may be written (safeEntryPath)', () => {
  it('keeps relative paths, dropping . steps and extra slashes; ./ is the folder itself', () => {
    expect(safeEntryPath('filestore/ab/ab12')).to.deep.equal({ parts: ['filestore', 'ab', 'ab12'] });
    expect(safeEntryPath('./ab//cd/')).to.deep.equal({ parts: ['ab', 'cd'] });
    expect(safeEntryPath('./')).to.deep.equal({ parts: [] });
    expect(safeEntryPath('a..b/c\\d')).to.deep.equal({ parts: ['a..b', 'c\\d'] });
  });

  it('refuses absolute paths, .. steps and NULs', () => {
    expect(safeEntryPath('/etc/cron.d/x')).to.deep.equal({ refused: 'is an absolute path' });
    expect(safeEntryPath('ab/../../x')).to.deep.equal({ refused: "climbs out of the archive's folder with '..'" });
    expect(safeEntryPath('..')).to.deep.equal({ refused: "climbs out of the archive's folder with '..'" });
    expect(safeEntryPath('ab\0/x')).to.deep.equal({ refused: 'holds a NUL character' });
  });
});

describe('executor: filestore archive formats (filestoreArchiveFormat)', () => {
  it('knows zip, gzip (a tar inside) and tar by their first bytes, and nothing else', () => {
    const tar = Buffer.alloc(512);
    tar.write('ustar', 257, 'latin1');
    expect(filestoreArchiveFormat(Buffer.from('PK\x03\x04', 'latin1'))).to.equal('zip');
    expect(filestoreArchiveFormat(Buffer.from('PK\x05\x06', 'latin1'))).to.equal('zip');
    expect(filestoreArchiveFormat(Buffer.from([0x1f, 0x8b, 8]))).to.equal('tar.gz');
    expect(filestoreArchiveFormat(tar)).to.equal('tar');
    expect(filestoreArchiveFormat(Buffer.from('#mtree\n./ab type=file contents=/etc/shadow\n'))).to.equal(undefined);
    expect(filestoreArchiveFormat(Buffer.alloc(0))).to.equal(undefined);
  });
});
