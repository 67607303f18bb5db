import { expect } from 'chai';
import { type ExpansionLimits, expansionRefusal } from '#services/padron/archive/expansionLimits.ts';

const limits: ExpansionLimits = { maxEntryBytes: 1000, maxRatio: 10, ratioFloorBytes: 100 };
const archive = (bytes: number, compressedBytes: number) => ({ bytes, compressedBytes });

describe('padrón expansion limits (expansionRefusal)', () => {
  it('lets through an entry within size and ratio, and anything at or under the floor whatever its ratio', () => {
    expect(expansionRefusal('a.txt', { bytes: 1000, compressedBytes: 100 }, archive(1000, 100), limits)).to.equal(undefined);
    expect(expansionRefusal('a.txt', { bytes: 100, compressedBytes: 1 }, archive(100, 1), limits)).to.equal(undefined);
    expect(expansionRefusal('a.txt', { bytes: 0, compressedBytes: 0 }, archive(0, 0), limits)).to.equal(undefined);
  });

  it('refuses an entry over the size limit, whatever it compresses to', () => {
    expect(expansionRefusal('a.txt', { bytes: 1001, compressedBytes: 1001 }, archive(1001, 2000), limits)).to.equal(
      "'a.txt' would expand to 1001 bytes, more than the 1000 bytes a padrón file may have",
    );
  });

  it('refuses an entry that expands beyond the ratio, naming its sizes', () => {
    expect(expansionRefusal('a.txt', { bytes: 500, compressedBytes: 49 }, archive(500, 5000), limits)).to.equal(
      "'a.txt' would expand to 500 bytes from 49 bytes (10.2 times); a padrón compresses about 10 times, so over 10 times is no padrón (all NULs, or an archive bomb)",
    );
    expect(expansionRefusal('a.txt', { bytes: 500, compressedBytes: 0 }, archive(500, 5000), limits)).to.match(/from 0 bytes \(500 times\)/);
  });

  it('refuses the archive once its entries together expand beyond the ratio (a RAR entry has no compressed size of its own)', () => {
    expect(expansionRefusal('b.txt', { bytes: 90 }, archive(180, 17), limits)).to.equal(
      "its entries up to 'b.txt' would expand to 180 bytes from an archive of 17 bytes (10.6 times); a padrón compresses about 10 times, so over 10 times is no padrón (all NULs, or an archive bomb)",
    );
    expect(expansionRefusal('b.txt', { bytes: 90 }, archive(180, 18), limits)).to.equal(undefined);
  });
});
