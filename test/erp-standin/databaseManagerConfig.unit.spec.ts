import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseStandinArgs } from '#services/erp-standin/args.ts';
import { rcFilePath, readRcFile } from '#services/erp-standin/configFile.ts';
import { hashMasterPassword, verifyMasterPassword } from '#services/erp-standin/masterPassword.ts';
import { runDir } from '#test/support/runDir.ts';

/** Made with Python's hashlib.pbkdf2_hmac('sha512', b'correct horse', salt, 1000, 64), written in passlib's format. */
const PASSLIB_HASH = '$pbkdf2-sha512$1000$Zm9yamEtc3RhbmQtaW4tcw$Zg0L7rmY1Yr6V6tVaIsHzs0vTWnb06nq/COwoTjIIiEd0jXldDdXe7yehsa/sthZqBUTDfRg1gWSNicR0ra/5A';

describe('ERP stand-in configuration (odoo/tools/config.py)', () => {
  const dir = runDir('standin-rc');
  const rc = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const noRc = { HOME: dir };

  it('opens the database manager with the master password admin by default', () => {
    const options = parseStandinArgs(['-d', 'db'], noRc);
    expect(options).to.include({ listDb: true, adminPasswd: 'admin', rcFile: join(dir, '.odoorc') });
  });

  it('reads [options] of -c, ODOO_RC or ~/.odoorc, and the command line wins', () => {
    const file = rc('a.conf', '[misc]\nlist_db = True\n[options]\n; a comment\nADMIN_PASSWD: secret\nlist_db = False\ndb_host = db.example\ndb_port = 6543\nhttp_port=9000\n');
    expect(parseStandinArgs(['-d', 'db', '-c', file], noRc)).to.include({ listDb: false, adminPasswd: 'secret', dbHost: 'db.example', dbPort: 6543, httpPort: 9000 });
    expect(parseStandinArgs(['-d', 'db', `--config=${file}`, '--db_host', 'cli.example', '--http-port', '8069'], noRc)).to.include({ dbHost: 'cli.example', httpPort: 8069 });
    expect(parseStandinArgs(['-d', 'db'], { ...noRc, ODOO_RC: file })).to.include({ listDb: false, rcFile: file });
    rc('.odoorc', '[options]\nadmin_passwd = from-home\n');
    expect(parseStandinArgs(['-d', 'db'], noRc)).to.include({ adminPasswd: 'from-home', listDb: true });
    const open = rc('open.conf', '[options]\nlist_db = True\n');
    expect(parseStandinArgs(['-d', 'db', '-c', open, '--no-database-list'], noRc)).to.include({ listDb: false });
  });

  it('misreads what the real ERP misreads: the manager stays open', () => {
    const zero = rc('zero.conf', '[options]\nlist_db = 0\n');
    expect(parseStandinArgs(['-d', 'db', '-c', zero], noRc).listDb, 'list_db = 0 is a non-empty string').to.equal(true);
    const inline = rc('inline.conf', '[options]\nlist_db = False ; closed\n');
    expect(parseStandinArgs(['-d', 'db', '-c', inline], noRc).listDb, 'no inline comments').to.equal(true);
    const noSection = rc('nosection.conf', 'list_db = False\n');
    expect(parseStandinArgs(['-d', 'db', '-c', noSection], noRc).listDb).to.equal(true);
    expect(parseStandinArgs(['-d', 'db', '-c', join(dir, 'missing.conf')], noRc).listDb, 'a missing file is no file').to.equal(true);
    if (process.getuid?.() !== 0) {
      const unreadable = rc('unreadable.conf', '[options]\nlist_db = False\n');
      chmodSync(unreadable, 0);
      expect(parseStandinArgs(['-d', 'db', '-c', unreadable], noRc).listDb, 'an unreadable file is no file').to.equal(true);
    }
    expect(readRcFile(rc('empty.conf', '[options]\nadmin_passwd =\nlist_db =\n'))).to.deep.equal(new Map([['admin_passwd', ''], ['list_db', '']]));
    expect(parseStandinArgs(['-d', 'db', '-c', join(dir, 'empty.conf')], noRc)).to.include({ adminPasswd: false, listDb: false });
    expect(rcFilePath(undefined, { HOME: dir, OPENERP_SERVER: '/etc/old.conf' })).to.equal('/etc/old.conf');
  });

  it('verifies passlib pbkdf2_sha512 hashes and plain master passwords; an empty one refuses all', async () => {
    expect(await verifyMasterPassword(PASSLIB_HASH, 'correct horse')).to.equal(true);
    expect(await verifyMasterPassword(PASSLIB_HASH, 'correct horsE')).to.equal(false);
    expect(await verifyMasterPassword(PASSLIB_HASH, '')).to.equal(false);
    expect(await verifyMasterPassword('admin', 'admin')).to.equal(true);
    expect(await verifyMasterPassword('admin', 'Admin')).to.equal(false);
    expect(await verifyMasterPassword(false, '')).to.equal(false);
    const hash = await hashMasterPassword('new one');
    expect(hash).to.match(/^\$pbkdf2-sha512\$600000\$[A-Za-z0-9./]{22}\$[A-Za-z0-9./]{86}$/);
    expect(await verifyMasterPassword(hash, 'new one')).to.equal(true);
    await verifyMasterPassword('$pbkdf2-sha512$x$y', 'a').then(
      () => expect.fail('a malformed hash is an error'),
      (error: Error) => expect(error.message).to.contain('malformed'),
    );
  });
});
