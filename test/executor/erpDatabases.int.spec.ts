import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { detectDumpFormat } from '#services/executor/database/dumpFormat.ts';
import { type ErpDatabases, erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { copyFilestore, extractFilestore } from '#services/executor/database/filestore.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { ERP_TABLES, bsdtar, freshName, memoryLog, pgDump, sql } from './fixtures/databaseFixtures.ts';

/** Instance databases belong to their own roles; tests seed and read them as those roles, as the ERP would. */
const credentials = (database: string) => instanceCredentials('test master key', database);

describe('executor: ERP databases and filestores', function () {
  this.timeout(30_000);
  let adminUrl: string;
  const ownerUrl = (database: string) => urlAs(adminUrl, database, credentials(database));
  const sqlAsOwner = <Row extends object = Record<string, unknown>>(database: string, text: string, params: unknown[] = []) => sql<Row>(ownerUrl(database), database, text, params);
  let log: ReturnType<typeof memoryLog>;
  let databases: ErpDatabases;
  let dir: string;

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
  });
  beforeEach(() => {
    log = memoryLog();
    databases = erpDatabases({ adminUrl, log: log.stream, credentials });
    dir = runDir('erp-databases');
  });

  /** A database holding table `partner` with the given names. */
  async function seeded(label: string, names: string[]): Promise<string> {
    const name = freshName(label);
    await databases.recreate(name);
    await sqlAsOwner(name, 'create table partner (id serial primary key, name text)');
    for (const partner of names) await sqlAsOwner(name, 'insert into partner (name) values ($1)', [partner]);
    return name;
  }
  const partners = async (database: string) => (await sqlAsOwner<{ name: string }>(database, 'select name from partner order by id')).map((row) => row.name);

  describe('databaseName', () => {
    it('is forja_<slug> with _ for -, and stays within 63 bytes and distinct for long slugs', () => {
      expect(databaseName('acme-prod-main')).to.equal('forja_acme_prod_main');
      const long = (tail: string) => databaseName(`${'a'.repeat(60)}-${tail}`);
      expect(long('one')).to.have.length(63);
      expect(long('one')).to.not.equal(long('two'));
      expect(() => databaseName('Acme_Prod')).to.throw(/not an instance slug/);
    });
  });

  describe('recreate, drop, exists', () => {
    it('recreates an existing database empty, twice, ending the connections to it', async () => {
      const name = await seeded('recreate', ['Ana']);
      const open = new pg.Client({ connectionString: ownerUrl(name) });
      await open.connect();
      open.on('error', () => undefined);
      await databases.recreate(name);
      await databases.recreate(name);
      expect(await databases.exists(name)).to.equal(true);
      expect(await sqlAsOwner(name, `select 1 from pg_tables where tablename = 'partner'`)).to.have.length(0);
      expect(log.text()).to.match(/^\S+Z ended 1 connection\(s\) to erpdb_recreate_/m);
      await open.end().catch(() => undefined);
    });

    it('drops, and dropping a missing database is fine; server databases are refused', async () => {
      const name = await seeded('drop', []);
      await databases.drop(name);
      await databases.drop(name);
      expect(await databases.exists(name)).to.equal(false);
      await expectRejection(databases.drop('postgres'), /belongs to the server/);
      await expectRejection(databases.recreate('bad;name'), /not a usable database name/);
    });
  });

  describe('clone', () => {
    it('copies committed rows while a session holds the source open in a transaction', async () => {
      const source = await seeded('clonesrc', ['Ana', 'Bruno']);
      const open = new pg.Client({ connectionString: ownerUrl(source) });
      await open.connect();
      try {
        await open.query(`begin; update partner set name = 'uncommitted' where name = 'Ana'`);
        const target = freshName('clonedst');
        await databases.clone(source, target);
        expect(await partners(target)).to.deep.equal(['Ana', 'Bruno']);
        await databases.clone(source, target);
        expect(await partners(target)).to.deep.equal(['Ana', 'Bruno']);
        expect(log.text()).to.include(`copied database ${source} to ${target}`);
      } finally {
        await open.end();
      }
    });

    it('refuses a missing source clearly and leaves the target alone', async () => {
      const target = await seeded('clonekeep', ['Kept']);
      const missing = freshName('missing');
      await expectRejection(databases.clone(missing, target), new RegExp(`database ${missing} does not exist`));
      expect(await partners(target)).to.deep.equal(['Kept']);
      expect(log.text()).to.match(/FAILED: cannot copy database/);
    });

    it('fails with the message of the tool that failed', async () => {
      const source = await seeded('closed', ['Ana']);
      await sql(adminUrl, 'postgres', `alter database ${source} allow_connections false`);
      await expectRejection(databases.clone(source, freshName('closeddst')), /pg_dump exited with 1: pg_dump: error: .*not currently accepting connections/);
    });
  });

  describe('restore and detectDumpFormat', () => {
    it('restores a custom dump and a plain dump made by pg_dump', async () => {
      const source = await seeded('dumpsrc', ['Ana', 'Bruno', 'Carla']);
      const custom = join(dir, 'db.dump');
      const plain = join(dir, 'db.sql');
      pgDump(adminUrl, source, 'c', custom);
      pgDump(adminUrl, source, 'p', plain);
      expect(await detectDumpFormat(custom)).to.equal('custom');
      expect(await detectDumpFormat(plain)).to.equal('plain');
      for (const [file, format] of [[custom, 'custom'], [plain, 'plain']] as const) {
        const target = freshName(`restore${format}`);
        await databases.restore(file, format, target);
        await databases.restore(file, format, target);
        expect(await partners(target), format).to.deep.equal(['Ana', 'Bruno', 'Carla']);
      }
    });

    it('restores a directory dump (pg_dump -Fd, what the upgrade platform returns) and refuses a folder without toc.dat', async () => {
      const source = await seeded('dirsrc', ['Ana', 'Bruno']);
      const folder = join(dir, 'db.dir');
      pgDump(adminUrl, source, 'd', folder);
      expect(await detectDumpFormat(folder)).to.equal('directory');
      const target = freshName('restoredir');
      await databases.restore(folder, 'directory', target);
      expect(await partners(target)).to.deep.equal(['Ana', 'Bruno']);
      const empty = join(dir, 'not-a-dump');
      mkdirSync(empty);
      const refused = await detectDumpFormat(empty).then(
        () => expect.fail('expected a refusal'),
        (error: Error) => error.message,
      );
      expect(refused).to.equal(`${empty} is a folder without toc.dat: expected a pg_dump directory dump (pg_dump -Fd), a custom-format archive or a plain SQL dump`);
      const asFile = await databases.restore(folder, 'custom', freshName('restorewrong')).then(
        () => expect.fail('expected a refusal'),
        (error: Error) => error.message,
      );
      expect(asFile).to.match(/: no such file$/);
    });

    it('restores plain SQL without its owners and grants, and keeps COPY rows that start with a backslash or are longer than a MiB', async () => {
      const file = join(dir, 'foreign.sql');
      writeFileSync(
        file,
        [
          'CREATE TABLE public.partner (id integer, name text);',
          'ALTER TABLE public.partner OWNER TO odoo_production;',
          'COPY public.partner (name, id) FROM stdin;',
          '\\N\t1',
          '\\\\restrict\t2',
          `${'x'.repeat(3 << 20)}\t3`,
          '\\.',
          'GRANT SELECT ON TABLE public.partner TO reporting;',
        ].join('\n'),
      );
      const target = freshName('foreign');
      await databases.restore(file, 'plain', target);
      expect(await sqlAsOwner(target, 'select id, left(name, 9) as name, length(name) as length from partner order by id')).to.deep.equal([
        { id: 1, name: null, length: null },
        { id: 2, name: '\\restrict', length: 9 },
        { id: 3, name: 'xxxxxxxxx', length: 3 << 20 },
      ]);
    });

    it('refuses psql meta-commands in a plain dump before running them', async () => {
      const witness = join(dir, 'shell-ran');
      const file = join(dir, 'evil.sql');
      writeFileSync(file, `CREATE TABLE t (id integer);\n\\! touch ${witness}\n`);
      await expectRejection(databases.restore(file, 'plain', freshName('evilsql')), /line 2 holds the psql command \\!/);
      writeFileSync(file, `CREATE TABLE t (id integer);\nSELECT 1; \\! touch ${witness}\n`);
      await expectRejection(databases.restore(file, 'plain', freshName('evilsql')), /psql exited with 3: psql:<stdin>:2: error: backslash commands are restricted/);
      expect(existsSync(witness)).to.equal(false);
    });

    it('fails clearly on a corrupt custom dump, with the tool message in the error and the log', async () => {
      const file = join(dir, 'corrupt.dump');
      writeFileSync(file, Buffer.concat([Buffer.from('PGDMP'), Buffer.alloc(64, 0xab)]));
      expect(await detectDumpFormat(file)).to.equal('custom');
      const error = await expectRejection(databases.restore(file, 'custom', freshName('corrupt')), /pg_restore (exited with 1|was killed)/);
      expect(error.message).to.match(/pg_restore: /);
      expect(log.text()).to.match(/^\S+Z pg_restore: error: unsupported version/m);
    });

    it('detectDumpFormat refuses what is not a dump, saying what it expected', async () => {
      const garbage = join(dir, 'garbage.bin');
      writeFileSync(garbage, Buffer.from([0x00, 0x01, 0x02, 0xff, 0x10]));
      await expectRejection(detectDumpFormat(garbage), /expected a pg_dump custom-format archive .* or a plain SQL dump/);
      const gzip = join(dir, 'db.sql.gz');
      writeFileSync(gzip, Buffer.from([0x1f, 0x8b, 0x08, 0x00]));
      await expectRejection(detectDumpFormat(gzip), /gzip-compressed/);
    });
  });

  describe('neutralize', () => {
    it('turns off crons (but autovacuum), mail servers and fetchmail, flags the database, and says so; a re-run changes nothing', async () => {
      const name = freshName('neutral');
      await databases.recreate(name);
      await sqlAsOwner(name, ERP_TABLES);
      const done = await databases.neutralize(name);
      expect(done.map((step) => [step.what.split(' (')[0], step.rows])).to.deep.equal([
        ['scheduled actions', 2],
        ['outgoing mail servers', 1],
        [`placeholder outgoing mail server 'neutralization - disable emails'`, 1],
        ['incoming mail servers', 1],
        ['ir_config_parameter database.is_neutralized = true', 1],
      ]);
      expect(await sqlAsOwner(name, 'select name from ir_cron where active order by id')).to.deep.equal([{ name: 'Base: autovacuum' }]);
      expect(await sqlAsOwner(name, 'select name, smtp_host from ir_mail_server where active')).to.deep.equal([{ name: 'neutralization - disable emails', smtp_host: 'invalid' }]);
      expect(await sqlAsOwner(name, 'select active from fetchmail_server')).to.deep.equal([{ active: false }]);
      expect(await sqlAsOwner(name, 'select key, value from ir_config_parameter order by key')).to.deep.equal([
        { key: 'database.enterprise_code', value: 'M123' },
        { key: 'database.is_neutralized', value: 'true' },
        { key: 'database.uuid', value: 'abc' },
      ]);
      expect(log.text()).to.match(/neutralize erpdb_neutral_\w+: scheduled actions \(ir_cron\) deactivated, except base.autovacuum_job \(2 row\(s\) changed\)/);

      const again = await databases.neutralize(name);
      expect(again.map((step) => step.rows)).to.deep.equal([0, 0, 0, 0, 0]);
      expect(await sqlAsOwner(name, 'select count(*)::int as n from ir_mail_server')).to.deep.equal([{ n: 2 }]);
    });

    it('does nothing on a database without those tables (the ERP stand-in) and does not fail', async () => {
      const name = freshName('standin');
      await databases.recreate(name);
      await sqlAsOwner(name, `create table ir_module_module (id serial primary key, name varchar not null unique, state varchar not null)`);
      expect(await databases.neutralize(name)).to.deep.equal([]);
      expect(log.text()).to.include('not applicable here');
    });
  });

  describe('filestore', () => {
    /** A filestore folder `<root>/<top>/ab/<hash>` and `<root>/<top>/cd/<hash>`. */
    function filestoreTree(root: string, top: string): void {
      mkdirSync(join(root, top, 'ab'), { recursive: true });
      mkdirSync(join(root, top, 'cd'), { recursive: true });
      writeFileSync(join(root, top, 'ab', 'ab12'), 'invoice.pdf');
      writeFileSync(join(root, top, 'cd', 'cd34'), 'logo.png');
    }
    function staleTarget(): string {
      const target = join(dir, 'data', 'filestore', 'forja_copy');
      mkdirSync(target, { recursive: true });
      writeFileSync(join(target, 'stale'), 'old');
      return target;
    }
    const expectFilestore = (target: string) => {
      expect(readFileSync(join(target, 'ab', 'ab12'), 'utf8')).to.equal('invoice.pdf');
      expect(readFileSync(join(target, 'cd', 'cd34'), 'utf8')).to.equal('logo.png');
      expect(existsSync(join(target, 'stale'))).to.equal(false);
      expect(existsSync(`${target}.partial`)).to.equal(false);
    };

    it('extracts a zip and a tar.gz with a filestore/ top folder, replacing the target', async () => {
      filestoreTree(join(dir, 'src'), 'filestore');
      for (const [archive, flags] of [['fs.zip', ['--format', 'zip']], ['fs.tar.gz', ['-z']]] as const) {
        bsdtar(['-c', ...flags, '-f', join(dir, archive), '-C', join(dir, 'src'), 'filestore']);
        const target = staleTarget();
        expect(await extractFilestore(join(dir, archive), target, log.stream)).to.deep.equal({ files: 2 });
        expectFilestore(target);
      }
    });

    it('takes the filestore of an ERP backup zip or data dir and strips a database-named folder', async () => {
      filestoreTree(join(dir, 'backup', 'filestore'), 'acme_prod');
      writeFileSync(join(dir, 'backup', 'dump.sql'), 'select 1;');
      writeFileSync(join(dir, 'backup', 'manifest.json'), '{}');
      mkdirSync(join(dir, 'backup', 'sessions'));
      writeFileSync(join(dir, 'backup', 'sessions', 'werkzeug_abc.sess'), 'session');
      bsdtar(['-c', '--format', 'zip', '-f', join(dir, 'backup.zip'), '-C', join(dir, 'backup'), 'dump.sql', 'manifest.json', 'sessions', 'filestore']);
      const target = staleTarget();
      await extractFilestore(join(dir, 'backup.zip'), target, log.stream);
      expectFilestore(target);
    });

    it('refuses ../ entries and symbolic links, writing nothing outside and keeping the old filestore', async () => {
      mkdirSync(join(dir, 'evil', 'inner'), { recursive: true });
      writeFileSync(join(dir, 'evil', 'escape.txt'), 'pwned');
      bsdtar(['-c', '-P', '-f', join(dir, 'dotdot.tar'), '-C', join(dir, 'evil', 'inner'), '../escape.txt']);
      expect(bsdtar(['-t', '-f', join(dir, 'dotdot.tar')])).to.include('../escape.txt');
      const target = staleTarget();
      await expectRejection(extractFilestore(join(dir, 'dotdot.tar'), target, log.stream), /^cannot extract filestore archive .*dotdot\.tar: \.\.\/escape\.txt climbs out of the archive's folder with '\.\.'$/);
      expect(existsSync(join(dir, 'data', 'filestore', 'escape.txt'))).to.equal(false);
      expect(readFileSync(join(target, 'stale'), 'utf8')).to.equal('old');

      mkdirSync(join(dir, 'links', 'ab'), { recursive: true });
      symlinkSync('/etc/hostname', join(dir, 'links', 'ab', 'ab12'));
      bsdtar(['-c', '-f', join(dir, 'links.tar'), '-C', join(dir, 'links'), 'ab']);
      await expectRejection(extractFilestore(join(dir, 'links.tar'), target, log.stream), /ab\/ab12 is a symbolic link/);
      expect(readFileSync(join(target, 'stale'), 'utf8')).to.equal('old');
    });

    it('copies a filestore over an old one, and a missing one as empty', async () => {
      filestoreTree(dir, 'forja_source');
      const target = staleTarget();
      expect(await copyFilestore(join(dir, 'forja_source'), target, log.stream)).to.deep.equal({ files: 2, sourceExisted: true });
      expectFilestore(target);
      rmSync(join(dir, 'forja_source'), { recursive: true });
      expect(await copyFilestore(join(dir, 'forja_source'), target, log.stream)).to.deep.equal({ files: 0, sourceExisted: false });
    });
  });
});

async function expectRejection(promise: Promise<unknown>, message: RegExp): Promise<Error> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error, 'expected a rejection').to.be.instanceOf(Error);
  expect((error as Error).message).to.match(message);
  return error as Error;
}
