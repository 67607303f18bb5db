import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'chai';
import { erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { PARALLEL_RESTORE_FROM_BYTES, defaultRestoreJobs } from '#services/executor/database/pgTools.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import { loadExecutorSettings } from '#services/executor/executor.settings.ts';
import { ConfigError } from '#shared/config/config.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { freshName, memoryLog, pgDump, sql } from './fixtures/databaseFixtures.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);

/** `pg_restore --jobs` (FORJA_RESTORE_JOBS) for large custom-format dumps, as the database's own role. */
describe('executor: parallel pg_restore of large custom dumps', function () {
  this.timeout(60_000);
  let adminUrl: string;
  let dir: string;
  let dump: string;

  const restoreWith = async (options: { restoreJobs?: number; parallelRestoreFromBytes?: number }, file = dump) => {
    const log = memoryLog();
    const to = freshName('parallel');
    const restoring = erpDatabases({ adminUrl, log: log.stream, credentials, ...options }).restore(file, 'custom', to);
    return { to, log, restoring };
  };
  const rows = async (database: string) =>
    sql<{ partners: number; lines: number; indexes: number }>(
      urlAs(adminUrl, database, credentials(database)),
      database,
      `select (select count(*)::int from partner) as partners, (select count(*)::int from move_line) as lines,
              (select count(*)::int from pg_indexes where schemaname = 'public') as indexes`,
    );

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
    dir = runDir('parallel-restore');
    const source = freshName('parallelsrc');
    await sql(adminUrl, 'postgres', `create database ${source}`);
    await sql(
      adminUrl,
      source,
      `create table partner (id serial primary key, name text not null);
       insert into partner (name) select 'partner ' || n from generate_series(1, 20000) as n;
       create table move_line (id serial primary key, partner_id integer not null references partner, amount numeric not null);
       insert into move_line (partner_id, amount) select 1 + n % 20000, n from generate_series(1, 50000) as n;
       create index move_line_partner on move_line (partner_id);`,
    );
    dump = join(dir, 'erp.dump');
    pgDump(adminUrl, source, 'c', dump);
  });

  it('restores with --jobs from the size threshold on, complete, tables, keys and indexes', async () => {
    const { to, log, restoring } = await restoreWith({ restoreJobs: 2, parallelRestoreFromBytes: 1 });
    await restoring;
    expect(log.text()).to.match(/pg_restore --no-owner --no-acl --jobs 2 \(a \d+-byte archive\), as role erpdb_parallel_\w+/);
    expect(await rows(to)).to.deep.equal([{ partners: 20000, lines: 50000, indexes: 3 }]);
  });

  it('restores in one session below the threshold, or with one job', async () => {
    for (const options of [{ restoreJobs: 4 }, { restoreJobs: 1, parallelRestoreFromBytes: 1 }, {}]) {
      const { to, log, restoring } = await restoreWith(options);
      await restoring;
      expect(log.text(), JSON.stringify(options)).to.match(/pg_restore --no-owner --no-acl \(a \d+-byte archive\)/);
      expect(log.text()).not.to.include('--jobs');
      expect(await rows(to)).to.deep.equal([{ partners: 20000, lines: 50000, indexes: 3 }]);
    }
    expect(PARALLEL_RESTORE_FROM_BYTES).to.equal(16 * 2 ** 20);
  });

  it('keeps the restore without superuser rights: a parallel restore of a dump that needs them is refused, naming the statement', async () => {
    const marker = `/tmp/forja-restore-marker-${randomBytes(4).toString('hex')}`;
    const source = freshName('parallelmv');
    await sql(adminUrl, 'postgres', `create database ${source}`);
    await sql(
      adminUrl,
      source,
      `create table partner (id integer);
       create function leak() returns integer language plpgsql as $$
         begin
           if current_database() <> '${source}' then execute 'copy (select 1) to program ''touch ${marker}'''; end if;
           return 1;
         end $$;
       create materialized view leaked as select leak() as n;`,
    );
    const hostile = join(dir, 'mv.dump');
    pgDump(adminUrl, source, 'c', hostile);
    const { log, restoring } = await restoreWith({ restoreJobs: 2, parallelRestoreFromBytes: 1 }, hostile);
    const error = await restoring.then(
      () => expect.fail('the restore should have failed'),
      (caught: Error) => caught,
    );
    expect(log.text()).to.include('--jobs 2');
    expect(error.message).to.match(/the dump needs rights an instance's database role does not have/).and.match(/REFRESH MATERIALIZED VIEW public\.leaked/);
    expect(existsSync(marker), 'a file written by the server').to.equal(false);
  });

  it('takes FORJA_RESTORE_JOBS from 1 to 64; unset, one job per CPU, at most 4', () => {
    expect(loadExecutorSettings({ FORJA_RESTORE_JOBS: '3' }).FORJA_RESTORE_JOBS).to.equal(3);
    expect(loadExecutorSettings({}).FORJA_RESTORE_JOBS).to.equal(undefined);
    expect(() => loadExecutorSettings({ FORJA_RESTORE_JOBS: '0' })).to.throw(ConfigError, /FORJA_RESTORE_JOBS/);
    expect(() => loadExecutorSettings({ FORJA_RESTORE_JOBS: 'many' })).to.throw(ConfigError, /FORJA_RESTORE_JOBS/);
    expect(defaultRestoreJobs()).to.be.within(1, 4);
  });
});
