import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { type ErpDatabases, erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { freshName, memoryLog, pgDump, sql } from './fixtures/databaseFixtures.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);

/**
 * Issue 10, item 1: a developer's dump ran as the database superuser, so `COPY … TO PROGRAM`
 * wrote files as the cluster's OS user, `ALTER SYSTEM` changed the server and `CREATE ROLE`
 * made superusers. Restores now run as the instance's own role; each payload is refused by the
 * server and the restore fails naming what was refused.
 */
describe('restoring a hostile dump without superuser rights (issue 10, item 1)', function () {
  this.timeout(30_000);
  let adminUrl: string;
  let databases: ErpDatabases;
  let log: ReturnType<typeof memoryLog>;
  let dir: string;
  /** A file the server process would create if a payload ran: in /tmp, which the cluster's OS user may write. */
  let marker: string;

  const adminSql = (text: string) => sql(adminUrl, 'postgres', text);
  const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('the restore should have failed'), (error: Error) => error);

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
  });
  beforeEach(() => {
    log = memoryLog();
    databases = erpDatabases({ adminUrl, log: log.stream, credentials });
    dir = runDir('hostile-dumps');
    marker = `/tmp/forja-restore-marker-${randomBytes(4).toString('hex')}`;
  });

  const plainPayloads: Array<[string, string, RegExp]> = [
    ['COPY … TO PROGRAM', `COPY (SELECT 1) TO PROGRAM 'touch MARKER';`, /permission denied to COPY to or from an external program|must be superuser/],
    ['COPY … FROM PROGRAM', `CREATE TABLE loot (line text);\nCOPY loot FROM PROGRAM 'touch MARKER';`, /permission denied to COPY to or from an external program|must be superuser/],
    ['ALTER SYSTEM', `ALTER SYSTEM SET work_mem = '77MB';`, /must be superuser to execute ALTER SYSTEM|permission denied to set parameter/],
    ['CREATE ROLE … SUPERUSER', `CREATE ROLE forja_evil_role SUPERUSER LOGIN PASSWORD 'x';`, /permission denied to create role|must be superuser/],
  ];
  for (const [name, payload, refused] of plainPayloads) {
    it(`a plain dump with ${name}: refused by the server, nothing written, nothing changed, the statement named`, async () => {
      const file = join(dir, 'hostile.sql');
      writeFileSync(file, `CREATE TABLE partner (id integer);\n${payload.replaceAll('MARKER', marker)}\n`);
      const error = await rejection(databases.restore(file, 'plain', freshName('hostileplain')));
      expect(error.message).to.match(/the dump needs rights an instance's database role does not have/).and.match(refused).and.match(/line \d+ of the dump/);
      expect(existsSync(marker), 'a file written by the server').to.equal(false);
      expect(await adminSql(`select 1 from pg_roles where rolname = 'forja_evil_role'`)).to.have.length(0);
      expect(await adminSql(`select 1 from pg_file_settings where name = 'work_mem' and sourcefile like '%postgresql.auto.conf'`)).to.have.length(0);
    });
  }

  it('a custom dump whose materialized view calls COPY … TO PROGRAM on refresh: refused, no file written', async () => {
    // Built as the superuser; the function only acts outside the database it was made in, so
    // making the dump runs nothing and the restore's REFRESH is the one attempt.
    const source = freshName('mvsource');
    await adminSql(`create database ${source}`);
    await sql(
      adminUrl,
      source,
      `create function leak() returns integer language plpgsql as $$
         begin
           if current_database() <> '${source}' then execute 'copy (select 1) to program ''touch ${marker}'''; end if;
           return 1;
         end $$;
       create materialized view leaked as select leak() as n;`,
    );
    const dump = join(dir, 'mv.dump');
    pgDump(adminUrl, source, 'c', dump);
    const error = await rejection(databases.restore(dump, 'custom', freshName('hostilecustom')));
    expect(error.message).to.match(/the dump needs rights an instance's database role does not have \((permission denied|must be superuser)[^;]* to COPY to or from an external program/);
    expect(error.message).to.match(/statement REFRESH MATERIALIZED VIEW public\.leaked/);
    expect(existsSync(marker), 'a file written by the server').to.equal(false);
  });

  it('creates each instance database owned by its own role, which is no superuser and cannot create databases or roles', async () => {
    const name = freshName('owned');
    await databases.recreate(name);
    const [owner] = await adminSql(`select pg_get_userbyid(datdba) as owner from pg_database where datname = '${name}'`);
    expect(owner).to.deep.equal({ owner: name });
    const [role] = await adminSql(`select rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls from pg_roles where rolname = '${name}'`);
    expect(role).to.deep.equal({ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolreplication: false, rolbypassrls: false });
    // Another instance's role cannot even connect to it.
    const other = freshName('other');
    await databases.recreate(other);
    const refused = await sql(`postgres://${other}:${encodeURIComponent(credentials(other).password)}@${new URL(adminUrl).host}/postgres`, name, 'select 1').then(
      () => null,
      (error: Error) => error.message,
    );
    expect(refused).to.match(/permission denied for database/);
    await databases.drop(name);
    expect(await adminSql(`select 1 from pg_roles where rolname = '${name}'`), 'the role goes with its database').to.have.length(0);
  });
});
