import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseStandinArgs } from '#services/erp-standin/args.ts';
import { verifyMasterPassword } from '#services/erp-standin/masterPassword.ts';
import { readRcFile } from '#services/erp-standin/configFile.ts';
import { erpConfigFile, erpConfigText, writeErpConfig } from '#services/executor/runtime/erpConfigFile.ts';
import { processConfigOptions } from '#services/executor/runtime/process/erpCommand.ts';
import { runDir } from '#test/support/runDir.ts';
import { optionsSpec } from './fixtures/optionsSpec.ts';

describe('the ERP configuration file (erpConfigFile.ts)', function () {
  this.timeout(20_000);
  const root = runDir('erp-conf');

  it('closes the database manager behind a fresh unknown master password, as the stand-in (imitating odoo/tools/config.py) reads it', async () => {
    const dataDir = join(root, 'a');
    const path = await writeErpConfig(dataDir);
    expect(path).to.equal(join(dataDir, 'run', 'erp.conf'));
    expect(statSync(path).mode & 0o777, 'it holds the database password: for the ERP\'s account alone').to.equal(0o600);
    expect(statSync(join(dataDir, 'run')).mode & 0o777).to.equal(0o755);
    const options = parseStandinArgs(['-d', 'db', '-c', path], { HOME: root });
    expect(options.listDb).to.equal(false);
    expect(options.adminPasswd).to.match(/^\$pbkdf2-sha512\$10000\$[A-Za-z0-9./]{22}\$[A-Za-z0-9./]{86}$/);
    for (const guess of ['admin', '', 'False']) expect(await verifyMasterPassword(options.adminPasswd, guess), guess).to.equal(false);

    const first = readFileSync(path, 'utf8');
    await writeErpConfig(dataDir, { addons_path: '/mnt/extra-addons' });
    const second = readFileSync(path, 'utf8');
    expect(second).not.to.equal(first);
    expect(second.split('\n').find((line) => line.startsWith('admin_passwd'))).not.to.equal(first.split('\n').find((line) => line.startsWith('admin_passwd')));
    expect(parseStandinArgs(['-d', 'db', '-c', path], { HOME: root }).addonsPath).to.deep.equal(['/mnt/extra-addons']);
    expect(readdirSync(join(dataDir, 'run')), 'no temporary file left').to.deep.equal(['erp.conf']);
  });

  it('never writes through a link or into a folder someone else could write', async function () {
    const target = join(root, 'elsewhere');
    mkdirSync(target);
    const linked = join(root, 'b');
    mkdirSync(linked);
    symlinkSync(target, join(linked, 'run'));
    await writeErpConfig(linked).then(
      () => expect.fail('wrote through a link'),
      (error: NodeJS.ErrnoException) => expect(error.code).to.be.oneOf(['ELOOP', 'ENOTDIR']),
    );
    expect(readdirSync(target)).to.deep.equal([]);

    const hidden = join(root, 'e');
    mkdirSync(join(hidden, 'run'), { recursive: true, mode: 0o700 });
    chmodSync(join(hidden, 'run'), 0o700);
    await writeErpConfig(hidden);
    expect(statSync(join(hidden, 'run')).mode & 0o777, 'a folder the ERP could not enter is opened up').to.equal(0o755);

    const planted = join(root, 'c');
    mkdirSync(join(planted, 'run'), { recursive: true });
    writeFileSync(join(root, 'victim'), 'untouched');
    symlinkSync(join(root, 'victim'), join(planted, 'run', 'erp.conf'));
    await writeErpConfig(planted);
    expect(readFileSync(join(root, 'victim'), 'utf8'), 'a planted erp.conf link is replaced, not followed').to.equal('untouched');
    expect(statSync(erpConfigFile(planted)).isFile()).to.equal(true);

    if (process.getuid?.() !== 0) return this.skip();
    const foreign = join(root, 'd');
    mkdirSync(join(foreign, 'run'), { recursive: true });
    chownSync(join(foreign, 'run'), 65534, 65534);
    await writeErpConfig(foreign).then(
      () => expect.fail('wrote into a folder of another account'),
      (error: Error) => expect(error.message).to.contain('belongs to uid 65534'),
    );
    rmSync(foreign, { recursive: true });
  });

  it('gives the file to the account that runs the ERP, 0600, in a folder that stays Forja\'s', async function () {
    if (process.getuid?.() !== 0) return this.skip();
    const dataDir = join(root, 'owned');
    const path = await writeErpConfig(dataDir, { db_password: 'secret' }, { uid: 65534, gid: 65534 });
    expect(statSync(path)).to.include({ uid: 65534, gid: 65534 });
    expect(statSync(path).mode & 0o777).to.equal(0o600);
    expect(statSync(join(dataDir, 'run')).uid).to.equal(0);
    chmodSync(dataDir, 0o755);
    const asNobody = (command: string) => spawnSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', command], { encoding: 'utf8' });
    expect(asNobody(`cat ${path}`).stdout, 'its account reads it').to.include('db_password = secret');
    expect(asNobody(`: > ${join(dataDir, 'run', 'other')}`).status, 'and cannot write beside it').not.to.equal(0);
  });

  it('is read by the stand-in (imitating odoo/tools/config.py) with every option as Forja wrote it: a password with spaces, ; and # stays whole', async () => {
    const dir = join(root, 'read-back');
    const path = await writeErpConfig(dir, processConfigOptions(optionsSpec({ dataDir: dir }), { server: true }));
    const options = parseStandinArgs(['-c', path], { HOME: dir });
    expect(options).to.include({ database: 'forja_acme_dev', dbHost: 'db.internal', dbPort: 6543, dbUser: 'forja_acme_dev', dbPassword: 'pa ss;word#1', listDb: false });
    const file = readRcFile(path);
    expect(file.get('proxy_mode')).to.equal(true);
    expect(file.get('without_demo')).to.equal('all');
  });

  it('refuses an option that would add a line', () => {
    expect(() => erpConfigText({ addons_path: '/a\nlist_db = True' })).to.throw('refusing option');
    expect(() => erpConfigText({ 'list_db = True\nx': 'y' })).to.throw('refusing option');
  });
});
