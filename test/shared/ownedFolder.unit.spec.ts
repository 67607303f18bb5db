import { expect } from 'chai';
import { closeSync, constants, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LinkRefusedError } from '#shared/fs/beneath.ts';
import { handOverTreeAt, ownedFolderAt } from '#shared/fs/ownedFolder.ts';

describe('folders a tenant owns inside a folder root opened (ownedFolder)', () => {
  let base: string;
  let dir: number;
  let elsewhere: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'forja-owned-'));
    elsewhere = mkdtempSync(join(tmpdir(), 'forja-elsewhere-'));
    dir = openSync(base, constants.O_RDONLY | constants.O_DIRECTORY);
  });
  afterEach(() => {
    closeSync(dir);
    rmSync(base, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('makes a missing folder with its mode, and sets the mode of an existing one', () => {
    closeSync(ownedFolderAt(dir, 'home', null, 0o700));
    expect(statSync(join(base, 'home')).mode & 0o7777).to.equal(0o700);
    closeSync(ownedFolderAt(dir, 'home', null, 0o750));
    expect(statSync(join(base, 'home')).mode & 0o7777).to.equal(0o750);
  });

  it('removes a link in its place, never touching what it named, and makes the folder anew', () => {
    const before = statSync(elsewhere);
    symlinkSync(elsewhere, join(base, 'home'));
    closeSync(ownedFolderAt(dir, 'home', null, 0o700));
    expect(lstatSync(join(base, 'home')).isDirectory()).to.equal(true);
    expect(statSync(elsewhere)).to.include({ uid: before.uid, gid: before.gid, mode: before.mode });
  });

  it('refuses a file where the folder belongs', () => {
    writeFileSync(join(base, 'home'), 'x');
    expect(() => ownedFolderAt(dir, 'home', null, 0o700)).to.throw(LinkRefusedError, /a file where a folder belongs/);
  });

  it('hands a tree over, a link inside chowned itself and not followed', function () {
    if (process.getuid?.() !== 0) this.skip(); // chown to another account needs root
    mkdirSync(join(base, 'tree', 'sub'), { recursive: true });
    writeFileSync(join(base, 'tree', 'sub', 'file'), 'x');
    symlinkSync(elsewhere, join(base, 'tree', 'link'));
    const fd = ownedFolderAt(dir, 'tree', { uid: 65534, gid: 65534 }, 0o700);
    try {
      handOverTreeAt(fd, { uid: 65534, gid: 65534 });
    } finally {
      closeSync(fd);
    }
    for (const path of ['tree', 'tree/sub', 'tree/sub/file', 'tree/link']) expect(lstatSync(join(base, path)).uid, path).to.equal(65534);
    expect(statSync(elsewhere).uid).to.equal(0);
    expect(readdirSync(elsewhere)).to.deep.equal([]);
  });
});
