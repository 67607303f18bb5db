import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { suffixedName } from '#shared/instanceDatabase/databaseName.ts';
import { type ErpDatabases, erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { freshName, memoryLog, sql } from './fixtures/databaseFixtures.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);

/**
 * The database operations migration steps build on: template snapshots and restores from them,
 * ending connections, queries and exactly-once SQL as the database's role, dumps and sizes. Run
 * as a CREATEDB CREATEROLE admin, as FORJA_ERP_DATABASE_URL may well be, not as a superuser.
 */
describe('executor: ERP database checkpoints, queries and dumps', function () {
  this.timeout(30_000);
  let superUrl: string;
  let adminUrl: string;
  let log: ReturnType<typeof memoryLog>;
  let databases: ErpDatabases;
  const held: pg.Client[] = [];

  const asSuper = <Row extends object = Record<string, unknown>>(database: string, text: string, params: unknown[] = []) => sql<Row>(superUrl, database, text, params);
  /** As the database's role; a snapshot `<work>_ck` belongs to `<work>`'s. */
  const roleOf = (database: string) => database.replace(/_ck$/, '');
  const asOwner = <Row extends object = Record<string, unknown>>(database: string, text: string, params: unknown[] = []) =>
    sql<Row>(urlAs(superUrl, database, credentials(roleOf(database))), database, text, params);
  const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('the operation should have failed'), (error: Error) => error);
  const partners = async (database: string) => (await asOwner<{ name: string }>(database, 'select name from partner order by id')).map((row) => row.name);
  const ownerOf = async (database: string) => (await asSuper<{ owner: string }>('postgres', 'select pg_get_userbyid(datdba) as owner from pg_database where datname = $1', [database]))[0]?.owner;
  const roleExists = async (role: string) => (await asSuper('postgres', 'select 1 from pg_roles where rolname = $1', [role])).length > 0;

  before(async () => {
    superUrl = (await testCluster()).urlFor('postgres');
    const admin = `forja_admin_${randomBytes(3).toString('hex')}`;
    await sql(superUrl, 'postgres', `create role ${admin} login createdb createrole password 'admin secret'`);
    adminUrl = urlAs(superUrl, 'postgres', { user: admin, password: 'admin secret' });
  });
  beforeEach(() => {
    log = memoryLog();
    databases = erpDatabases({ adminUrl, log: log.stream, credentials });
  });
  afterEach(async () => {
    for (const client of held.splice(0)) await client.end().catch(() => undefined);
  });

  async function seeded(label: string, names: string[]): Promise<string> {
    const name = freshName(label);
    await databases.recreate(name);
    await asOwner(name, 'create table partner (id serial primary key, name text)');
    for (const partner of names) await asOwner(name, 'insert into partner (name) values ($1)', [partner]);
    return name;
  }

  /** A session of the database's role, kept open (idle, or running `text` when given). */
  async function session(database: string, text?: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: urlAs(superUrl, database, credentials(database)), application_name: 'test-held-session' });
    client.on('error', () => undefined);
    await client.connect();
    held.push(client);
    if (text) client.query(text).catch(() => undefined);
    return client;
  }
  const sessionsOn = async (database: string) => (await asSuper('postgres', 'select pid from pg_stat_activity where datname = $1', [database])).length;

  describe('suffixedName', () => {
    it('appends the suffix, and keeps long names within 63 bytes and distinct', () => {
      expect(suffixedName('forja_mig_acme', '_ck')).to.equal('forja_mig_acme_ck');
      const one = suffixedName(`${'a'.repeat(62)}1`, '_ck');
      const two = suffixedName(`${'a'.repeat(62)}2`, '_ck');
      expect(one).to.have.length(63).and.match(/_ck$/);
      expect(one).to.not.equal(two);
    });
  });

  describe('snapshot', () => {
    it('copies the database with TEMPLATE, owned by its role (objects too), ending other connections; a second snapshot replaces the first', async () => {
      const work = await seeded('snapwork', ['Ana', 'Bruno']);
      const snapshot = `${work}_ck`;
      await session(work);
      await databases.snapshot(work, snapshot);
      expect(await partners(snapshot)).to.deep.equal(['Ana', 'Bruno']);
      expect(await ownerOf(snapshot)).to.equal(work);
      expect(await asOwner(snapshot, `select tableowner from pg_tables where tablename = 'partner'`)).to.deep.equal([{ tableowner: work }]);
      expect(log.text()).to.match(new RegExp(`ended 1 connection\\(s\\) to ${work}`));

      await asOwner(work, `insert into partner (name) values ('Carla')`);
      await databases.snapshot(work, snapshot);
      expect(await partners(snapshot)).to.deep.equal(['Ana', 'Bruno', 'Carla']);
      expect(await asSuper('postgres', 'select datname from pg_database where datname like $1', [`${work}%`])).to.have.length(2);
    });

    it('gives no other role CONNECT on the snapshot', async () => {
      const work = await seeded('snapacl', ['Ana']);
      await databases.snapshot(work, `${work}_ck`);
      const [acl] = await asSuper<{ connect: boolean }>('postgres', `select has_database_privilege('public', $1, 'connect') as connect`, [`${work}_ck`]);
      expect(acl).to.deep.equal({ connect: false });
    });

    it('refuses a missing source before touching the older snapshot', async () => {
      const work = await seeded('snapkeep', ['Kept']);
      const snapshot = `${work}_ck`;
      await databases.snapshot(work, snapshot);
      await databases.drop(work);
      const error = await rejection(databases.snapshot(work, snapshot));
      expect(error.message).to.match(/cannot snapshot database .* does not exist/);
      expect(await partners(snapshot)).to.deep.equal(['Kept']);
      await databases.drop(snapshot);
    });
  });

  describe('restoreFromSnapshot', () => {
    it('rebuilds the database from the snapshot, ending its connections, owned by its role', async () => {
      const work = await seeded('restwork', ['Ana']);
      const snapshot = `${work}_ck`;
      await databases.snapshot(work, snapshot);
      await asOwner(work, `insert into partner (name) values ('half-done')`);
      await session(work, 'select pg_sleep(30)');
      await databases.restoreFromSnapshot(snapshot, work);
      expect(await partners(work)).to.deep.equal(['Ana']);
      expect(await ownerOf(work)).to.equal(work);
      expect(await partners(snapshot), 'the snapshot stays for the next attempt').to.deep.equal(['Ana']);
    });

    it('says clearly there is no snapshot, and leaves the database alone', async () => {
      const work = await seeded('restnone', ['Ana']);
      const error = await rejection(databases.restoreFromSnapshot(`${work}_ck`, work));
      expect(error.message).to.equal(`cannot restore database ${work}: there is no snapshot ${work}_ck`);
      expect(await partners(work)).to.deep.equal(['Ana']);
    });
  });

  describe('drop with a snapshot about', () => {
    it('keeps the role while the snapshot holds its objects, and drops it with the snapshot, in either order', async () => {
      const first = await seeded('dropwork', ['Ana']);
      await databases.snapshot(first, `${first}_ck`);
      await databases.drop(first);
      expect(await roleExists(first), 'kept for the snapshot').to.equal(true);
      expect(log.text()).to.include(`kept role ${first}`);
      await databases.drop(`${first}_ck`);
      expect(await roleExists(first)).to.equal(false);

      const second = await seeded('dropsnap', ['Ana']);
      await databases.snapshot(second, `${second}_ck`);
      await databases.drop(`${second}_ck`);
      expect(await roleExists(second), 'its database is still there').to.equal(true);
      await databases.drop(second);
      expect(await roleExists(second)).to.equal(false);
    });
  });

  describe('roles re-asserted by a non-superuser admin', () => {
    it('recreates an existing database, whose role exists, without naming attributes only a superuser may set', async () => {
      const work = await seeded('reassert', ['Ana']);
      await databases.recreate(work);
      expect(await asOwner(work, `select 1 from pg_tables where tablename = 'partner'`)).to.have.length(0);
    });

    it('refuses a role that was given bypassrls, which it cannot take away', async () => {
      const work = await seeded('bypass', []);
      await asSuper('postgres', `alter role ${work} bypassrls`);
      const error = await rejection(databases.recreate(work));
      expect(error.message).to.match(/has superuser, replication or bypassrls rights, which only a superuser can take away/);
    });
  });

  describe('terminateConnections', () => {
    it('ends every backend on the database, a running statement included, and waits until they are gone', async () => {
      const work = await seeded('terminate', ['Ana']);
      // An index build that takes 30 s per row: the server-side work a killed pg_restore leaves behind.
      await asOwner(work, `create function slow(text) returns text immutable language sql as $$ select $1 || pg_sleep(30)::text $$`);
      await session(work, 'create index partner_slow on partner (slow(name))');
      await session(work);
      await waitUntil(async () => (await asSuper('postgres', `select 1 from pg_stat_activity where datname = $1 and state = 'active' and query like 'create index%'`, [work])).length === 1, 'the index build');
      expect(await databases.terminateConnections(work)).to.equal(2);
      expect(await sessionsOn(work)).to.equal(0);
      expect(await databases.terminateConnections(work)).to.equal(0);
      expect(await asOwner(work, `select 1 from pg_indexes where indexname = 'partner_slow'`)).to.have.length(0);
    });

    it('still works once the job was aborted: it is what a pause runs after the abort', async () => {
      const work = await seeded('terminateabort', []);
      const abort = new AbortController();
      abort.abort();
      const aborted = erpDatabases({ adminUrl, log: log.stream, credentials, signal: abort.signal });
      await session(work, 'select pg_sleep(30)');
      expect(await aborted.terminateConnections(work)).to.equal(1);
      expect(await sessionsOn(work)).to.equal(0);
    });
  });

  describe('query', () => {
    it('returns rows as the database role, and a read-only query cannot change anything', async () => {
      const work = await seeded('query', ['Ana', 'Bruno']);
      expect(await databases.query(work, 'select current_user as who, count(*)::int as n from partner')).to.deep.equal([{ who: work, n: 2 }]);
      expect(await databases.query(work, 'select name from partner where name = $1', ['Bruno'])).to.deep.equal([{ name: 'Bruno' }]);
      const error = await rejection(databases.query(work, `delete from partner`, undefined, { readOnly: true }));
      expect(error.message).to.match(/read-only transaction/);
      expect(await partners(work)).to.deep.equal(['Ana', 'Bruno']);
    });
  });

  describe('runOnce', () => {
    it('runs the SQL with its marker in one transaction, and a second call does nothing', async () => {
      const work = await seeded('once', ['Ana']);
      const change = `update partner set name = name || '+'`;
      expect(await databases.runOnce(work, '1:pre_cleanup', change)).to.deep.equal({ ran: true });
      expect(await databases.runOnce(work, '1:pre_cleanup', change)).to.deep.equal({ ran: false });
      expect(await partners(work)).to.deep.equal(['Ana+']);
      expect(await asOwner(work, 'select key, tableowner from forja_migration_marks, pg_tables where tablename = $1', ['forja_migration_marks'])).to.deep.equal([
        { key: '1:pre_cleanup', tableowner: work },
      ]);
      expect(log.text()).to.include(`1:pre_cleanup already ran in ${work} (its marker is there): nothing done`);
    });

    it('leaves neither marker nor partial change when the SQL fails half-way', async () => {
      const work = await seeded('oncefail', ['Ana']);
      const error = await rejection(databases.runOnce(work, '1:broken', `update partner set name = 'changed'; insert into partner (name) values ('new'); select 1 / 0`));
      expect(error.message).to.match(/division by zero/);
      expect(await partners(work)).to.deep.equal(['Ana']);
      expect(await asOwner(work, `select 1 from pg_tables where tablename = 'forja_migration_marks'`)).to.have.length(0);
      expect(await databases.runOnce(work, '1:broken', `update partner set name = 'fixed'`)).to.deep.equal({ ran: true });
      expect(await partners(work)).to.deep.equal(['fixed']);
    });

    it('fails when the SQL ends the transaction itself', async () => {
      const work = await seeded('oncecommit', ['Ana']);
      const error = await rejection(databases.runOnce(work, '1:commits', `update partner set name = 'x'; commit; update partner set name = 'y'`));
      expect(error.message).to.match(/ended the transaction itself/);
    });
  });

  describe('dump and size', () => {
    it('dumps with pg_dump -Fc as the database role, written aside, and the dump restores', async () => {
      const work = await seeded('dump', ['Ana', 'Bruno']);
      const dir = runDir('erp-dump');
      const file = join(dir, 'work.dump');
      const { bytes } = await databases.dump(work, file);
      expect(bytes).to.equal(statSync(file).size).and.be.above(0);
      expect(readdirSync(dir)).to.deep.equal(['work.dump']);
      expect(log.text()).to.include(`pg_dump -Fc, as role ${work}`);
      const copy = freshName('dumpcopy');
      await databases.restore(file, 'custom', copy);
      expect(await partners(copy)).to.deep.equal(['Ana', 'Bruno']);
    });

    it('refuses a missing database without leaving a file', async () => {
      const dir = runDir('erp-dump-missing');
      const missing = freshName('nodump');
      const error = await rejection(databases.dump(missing, join(dir, 'x.dump')));
      expect(error.message).to.equal(`cannot dump database ${missing}: it does not exist`);
      expect(existsSync(join(dir, 'x.dump.partial'))).to.equal(false);
    });

    it('measures the database in bytes', async () => {
      const work = await seeded('size', ['Ana']);
      const size = await databases.size(work);
      const [real] = await asSuper<{ bytes: string }>('postgres', 'select pg_database_size($1)::text as bytes', [work]);
      expect(size).to.be.a('number').and.equal(Number(real?.bytes));
    });
  });
});
