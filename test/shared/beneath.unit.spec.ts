import { expect } from 'chai';
import { closeSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handOverBeneath, LinkRefusedError, lstatBeneath, namesOf, openFileBeneath, openFolderBeneath, withFolderBeneath, writeFileBeneath } from '#shared/fs/beneath.ts';

const me = { uid: process.getuid!(), gid: process.getgid!() };

describe('paths below a folder a tenant can write (beneath)', () => {
  let base: string;
  let secret: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'forja-beneath-'));
    secret = join(base, 'secret.json');
    writeFileSync(secret, '{"masterKey":"k"}');
    mkdirSync(join(base, 'tenant'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('refuses names that leave the folder', () => {
    expect(() => namesOf('../x')).to.throw(/out of its folder/);
    expect(() => namesOf('a/../../x')).to.throw(/out of its folder/);
    expect(() => namesOf('/etc/passwd')).to.throw(/not a relative path/);
    expect(namesOf('a//b/./c')).to.deep.equal(['a', 'b', 'c']);
  });

  it('reads a file by handle, and refuses one that is a link (the planted log of finding 1)', () => {
    writeFileSync(join(base, 'tenant', 'db.log'), 'hello');
    const fd = openFileBeneath(base, 'tenant/db.log', constants.O_RDONLY);
    const buffer = Buffer.alloc(5);
    readSync(fd, buffer);
    closeSync(fd);
    expect(buffer.toString()).to.equal('hello');
    rmSync(join(base, 'tenant', 'db.log'));
    symlinkSync(secret, join(base, 'tenant', 'db.log'));
    expect(() => openFileBeneath(base, 'tenant/db.log', constants.O_RDONLY)).to.throw(LinkRefusedError, /symbolic link/);
  });

  it('refuses a link anywhere on the way, not only at the end', () => {
    mkdirSync(join(base, 'elsewhere'));
    writeFileSync(join(base, 'elsewhere', 'db.log'), 'not the tenant\'s');
    symlinkSync(join(base, 'elsewhere'), join(base, 'tenant', 'logs'));
    expect(() => openFileBeneath(base, 'tenant/logs/db.log', constants.O_RDONLY)).to.throw(LinkRefusedError);
    expect(() => openFolderBeneath(base, 'tenant/logs')).to.throw(LinkRefusedError);
    expect(() => openFolderBeneath(base, 'tenant/logs/x', { mode: 0o700 })).to.throw(LinkRefusedError);
    expect(existsSync(join(base, 'elsewhere', 'x'))).to.equal(false);
  });

  it('makes missing folders with their mode, and writes a file whole without following a planted link', () => {
    symlinkSync(secret, join(base, 'tenant', 'token.json'));
    writeFileBeneath(base, 'tenant/config/token.json', '{"t":1}', { mode: 0o600, owner: me, folders: { mode: 0o700, owner: me } });
    expect(statSync(join(base, 'tenant', 'config')).mode & 0o777).to.equal(0o700);
    expect(readFileSync(join(base, 'tenant', 'config', 'token.json'), 'utf8')).to.equal('{"t":1}');
    writeFileBeneath(base, 'tenant/token.json', 'mine', { mode: 0o640 });
    expect(lstatSync(join(base, 'tenant', 'token.json')).isSymbolicLink()).to.equal(false);
    expect(readFileSync(join(base, 'tenant', 'token.json'), 'utf8')).to.equal('mine');
    expect(statSync(join(base, 'tenant', 'token.json')).mode & 0o777).to.equal(0o640);
    expect(readFileSync(secret, 'utf8')).to.equal('{"masterKey":"k"}');
  });

  it('hands a folder or file over through its handle, and removes a link in its place instead of chowning its target', () => {
    mkdirSync(join(base, 'tenant', 'home'));
    expect(handOverBeneath(base, 'tenant/home', me, 0o700)).to.equal('folder');
    expect(statSync(join(base, 'tenant', 'home')).mode & 0o777).to.equal(0o700);
    symlinkSync(secret, join(base, 'tenant', 'erp.log'));
    const before = statSync(secret).mode;
    expect(handOverBeneath(base, 'tenant/erp.log', me, 0o666)).to.equal('link-removed');
    expect(statSync(secret).mode).to.equal(before);
    expect(existsSync(join(base, 'tenant', 'erp.log'))).to.equal(false);
    expect(handOverBeneath(base, 'tenant/nothing', me)).to.equal('missing');
  });

  it('tells a link from a file without following it', () => {
    symlinkSync(secret, join(base, 'tenant', 'l'));
    expect(lstatBeneath(base, 'tenant/l')!.isSymbolicLink()).to.equal(true);
    expect(lstatBeneath(base, 'tenant/none')).to.equal(null);
    expect(lstatBeneath(base, 'none/none')).to.equal(null);
    expect(withFolderBeneath(base, 'tenant', () => 'ok')).to.equal('ok');
  });
});
