import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import type { StepOutcome } from '#shared/workflow/stepOutcome.ts';
import { erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import type { MigrationStep } from '#services/executor/migration/migrationStepContext.ts';
import { check } from '#services/executor/migration/steps/check.ts';
import { disk } from '#services/executor/migration/steps/disk.ts';
import { filestore } from '#services/executor/migration/steps/filestore.ts';
import { modules } from '#services/executor/migration/steps/modules.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { freshName, memoryLog, sql } from './fixtures/databaseFixtures.ts';
import { MIGRATION_ERP_TABLES, migrationStepContext, type StepContextOptions } from './fixtures/migrationStepsContext.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);

/** The pre-flight and post-check steps: they read the working database and the files around it, and change nothing. */
describe('executor: migration check steps (check, modules, filestore, disk)', function () {
  this.timeout(30_000);
  let adminUrl: string;
  let work: string;
  let dataDir: string;

  const asOwner = <Row extends object = Record<string, unknown>>(text: string, params: unknown[] = []) => sql<Row>(urlAs(adminUrl, work, credentials(work)), work, text, params);
  const planned = (type: string, params: Record<string, unknown>): PlannedStep => ({ id: `${type}_${randomBytes(2).toString('hex')}`, type, params: { phase: 'preflight', ...params } });
  const contextFor = (type: string, params: Record<string, unknown>, options: Partial<StepContextOptions> = {}) =>
    migrationStepContext({ adminUrl, credentials, workingDatabase: work, dataDir, blobs: createFsBlobStore(join(dataDir, 'blobs')), step: planned(type, params), ...options });
  function run(step: MigrationStep, type: string, params: Record<string, unknown>, options: Partial<StepContextOptions> = {}) {
    const made = contextFor(type, params, options);
    return { ...made, outcome: step(made.context) };
  }
  const failure = (outcome: StepOutcome) => {
    if (outcome.outcome !== 'fail') throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
    return outcome;
  };

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
  });
  beforeEach(async () => {
    dataDir = runDir('migration-checks');
    work = freshName('migcheck');
    await erpDatabases({ adminUrl, log: memoryLog().stream, credentials }).recreate(work);
    await asOwner(MIGRATION_ERP_TABLES);
  });

  describe('check', () => {
    it('passes on the expected row count, value or match', async () => {
      for (const params of [
        { sql: `select name from ir_module_module where state in ('to install', 'to upgrade', 'to remove')`, expect: { rows: 0 } },
        { sql: `select count(*) from ir_module_module where state = 'installed'`, expect: { equals: 4 } },
        { sql: `select latest_version from ir_module_module where name = 'base'`, expect: { matches: '^16\\.0\\.' } },
        { sql: `-- one statement; a comment and a final semicolon are fine\nselect count(*) from ir_cron where active;`, expect: { equals: 2 } },
      ]) {
        expect(await run(check, 'check', { ...params, severity: 'error' }).outcome, JSON.stringify(params)).to.deep.include({ outcome: 'done' });
      }
    });

    it('fails an error check naming what it found, the first rows cut short', async () => {
      const rows = failure(await run(check, 'check', { sql: `select name, state from ir_module_module where state = 'installed' order by name`, expect: { rows: 0 }, severity: 'error' }).outcome);
      expect(rows.retryable).to.equal(false);
      expect(rows.error).to.match(/^check check_\w+: expected 0 row\(s\), found 4 row\(s\): \{"name":"acme_custom","state":"installed"\}; \{"name":"base"/);
      const value = failure(await run(check, 'check', { sql: `select latest_version from ir_module_module where name = 'base'`, expect: { matches: '^17\\.0\\.' }, severity: 'error' }).outcome);
      expect(value.error).to.match(/expected a value matching \/\^17\\\.0\\\.\/, found "16\.0\.1\.3"$/);
      const none = failure(await run(check, 'check', { sql: `select latest_version from ir_module_module where name = 'nothing'`, expect: { equals: '1' }, severity: 'error' }).outcome);
      expect(none.error).to.match(/expected the value "1", found no rows$/);
      const many = failure(await run(check, 'check', { sql: `select n, repeat('x', 200) as filler from generate_series(1, 8) as n`, expect: { rows: 0 }, severity: 'error' }).outcome);
      expect(many.error).to.match(/found 8 row\(s\): \{"n":1,"filler":"x+"\}; .*… \(and 3 more\)$/);
      expect(many.error.length).to.be.below(800);
    });

    it('passes a warning check, listing what it found', async () => {
      const { outcome } = run(check, 'check', { sql: `select name from ir_cron where active order by id`, expect: { rows: 0 }, severity: 'warning' });
      const result = await outcome;
      expect(result).to.have.property('outcome', 'done');
      expect(result).to.have.nested.property('facts.warnings[0]').that.matches(/found 2 row\(s\): \{"name":"Mail: send queue"\}; \{"name":"Bank sync"\}/);
    });

    it('runs read-only: a check that writes fails without a retry, whatever its severity, and changes nothing', async () => {
      for (const severity of ['error', 'warning']) {
        const outcome = failure(await run(check, 'check', { sql: `update ir_cron set active = false returning id`, expect: { rows: 0 }, severity }).outcome);
        expect(outcome.error).to.match(/^check check_\w+: its sql was refused \(cannot execute UPDATE in a read-only transaction\): a check is one SQL statement that only reads$/);
        expect(outcome.retryable).to.equal(false);
      }
      expect(await asOwner(`select count(*)::int as n from ir_cron where active`)).to.deep.equal([{ n: 2 }]);
    });

    describe('cannot be made to write (issue 24, finding 8)', () => {
      const tableExists = async (name: string) => (await asOwner<{ found: string | null }>(`select to_regclass($1)::text as found`, [name]))[0]?.found !== null;
      async function refused(sql: string, reason: RegExp, table: string): Promise<void> {
        const { outcome, lines } = run(check, 'check', { sql, expect: { rows: 0 }, severity: 'error' });
        const failed = failure(await outcome);
        expect(failed.error, sql).to.match(reason);
        expect(failed.error, sql).to.match(/: a check is one SQL statement that only reads$/);
        expect(failed.retryable, sql).to.equal(false);
        expect(lines, sql).to.include(failed.error);
        expect(await tableExists(table), `${table} was created by: ${sql}`).to.equal(false);
      }

      it('refuses the audit\'s `commit; create table pwned()`, and several statements of any kind, creating nothing', async () => {
        await refused('commit; create table pwned()', /\(cannot insert multiple commands into a prepared statement\)/, 'pwned');
        await refused('select 1; create table pwned_second()', /\(cannot insert multiple commands into a prepared statement\)/, 'pwned_second');
      });

      it('refuses a lone COMMIT or ROLLBACK that ends the read-only transaction', async () => {
        await refused('commit', /\(the statement ended its read-only transaction \(a COMMIT or ROLLBACK\)/, 'pwned');
        await refused('rollback', /\(the statement ended its read-only transaction \(a COMMIT or ROLLBACK\)/, 'pwned');
      });

      it('refuses SET TRANSACTION READ WRITE and set_config of transaction_read_only', async () => {
        await refused('set transaction read write', /\(transaction read-write mode must be set before any query\)/, 'pwned');
        await refused(`select set_config('transaction_read_only', 'off', true)`, /\(transaction read-write mode must be set before any query\)/, 'pwned');
      });

      it('refuses SELECT … INTO, nextval and DO blocks that write, commit or switch to read-write', async () => {
        await asOwner('create sequence probe_seq');
        await refused('select 1 as x into pwned_into', /\(cannot execute SELECT INTO in a read-only transaction\)/, 'pwned_into');
        await refused(`select nextval('probe_seq')`, /\(cannot execute nextval\(\) in a read-only transaction\)/, 'pwned');
        await refused('do $$ begin create table pwned_do(); end $$', /\(cannot execute CREATE TABLE in a read-only transaction\)/, 'pwned_do');
        await refused('do $$ begin commit; create table pwned_do_commit(); end $$', /\(invalid transaction termination\)/, 'pwned_do_commit');
        await refused(
          `do $$ begin perform set_config('transaction_read_only', 'off', true); create table pwned_do_rw(); end $$`,
          /\(transaction read-write mode must be set before any query\)/,
          'pwned_do_rw',
        );
        expect(await asOwner(`select last_value::int as n, is_called from probe_seq`)).to.deep.equal([{ n: 1, is_called: false }]);
      });
    });

    it('aborted while its statement runs: ends within seconds, with no session left on the database', async () => {
      const abort = new AbortController();
      const applicationName = `forja-job-${randomBytes(4).toString('hex')}`;
      const { outcome } = run(check, 'check', { sql: 'select pg_sleep(30)', expect: { rows: 1 }, severity: 'error' }, { signal: abort.signal, applicationName });
      const settled = outcome.then(
        () => null,
        (error: Error) => error,
      );
      await waitUntil(async () => (await sql(adminUrl, 'postgres', `select 1 from pg_stat_activity where application_name = $1 and state = 'active'`, [applicationName])).length > 0, 'the check to run');
      const started = Date.now();
      const reason = new Error('paused by the operator');
      abort.abort(reason);
      expect(await settled).to.equal(reason);
      expect(Date.now() - started).to.be.below(3_000);
      expect(await sql(adminUrl, 'postgres', 'select pid from pg_stat_activity where datname = $1', [work])).to.deep.equal([]);
    });
  });

  describe('modules', () => {
    it('fails naming the installed modules the stand-in destination cannot load, allowMissing aside', async () => {
      const outcome = failure(await run(modules, 'modules', { allowMissing: ['theme_*'] }).outcome);
      expect(outcome.error).to.match(/1 installed module\(s\) the 17\.0 ERP cannot load: acme_custom$/);
      expect(outcome.retryable).to.equal(false);
    });

    it('passes when the rest are allowed, or found on the addons path', async () => {
      expect(await run(modules, 'modules', { allowMissing: ['theme_*', 'acme_?ustom'] }).outcome).to.deep.include({
        outcome: 'done',
        facts: { installed: 4, checked: true, allowedMissing: ['acme_custom', 'theme_fancy'] },
      });
      const addons = join(dataDir, 'addons');
      mkdirSync(join(addons, 'acme_custom'), { recursive: true });
      writeFileSync(join(addons, 'acme_custom', '__manifest__.py'), `{'name': 'Acme', 'version': '17.0.1.0.0'}`);
      expect(await run(modules, 'modules', { allowMissing: ['theme_*'] }, { sourceDir: addons }).outcome).to.deep.include({
        outcome: 'done',
        facts: { installed: 4, checked: true, allowedMissing: ['theme_fancy'] },
      });
    });

    it('says it cannot check a real ERP destination, rather than pass silently', async () => {
      const { outcome, lines } = run(modules, 'modules', { allowMissing: [] }, { standin: false });
      const result = await outcome;
      expect(result).to.have.property('outcome', 'done');
      expect(result).to.have.nested.property('facts.checked', false);
      expect(result).to.have.nested.property('facts.warnings[0]').that.matches(/not known to Forja for a real ERP; coverage of the 4 installed module\(s\) not checked/);
      expect(lines.join('\n')).to.include('not checked');
    });
  });

  describe('filestore', () => {
    const place = (context: { paths: { filestore: string } }, fname: string) => {
      const path = join(context.paths.filestore, work, fname);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, 'bytes');
    };

    it('passes when every stored attachment has its file', async () => {
      const made = contextFor('filestore', { maxMissing: 0 });
      place(made.context, 'ab/ab12');
      place(made.context, 'cd/cd34');
      expect(await filestore(made.context)).to.deep.equal({ outcome: 'done', facts: { files: 2, missing: 0 } });
    });

    it('fails past maxMissing naming the missing files, and warns within it; a path leading out counts as missing', async () => {
      await asOwner(`insert into ir_attachment (name, store_fname) values ('escape', '../../../etc/passwd')`);
      const made = contextFor('filestore', { maxMissing: 0 });
      place(made.context, 'ab/ab12');
      const outcome = failure(await filestore(made.context));
      expect(outcome.error).to.match(/2 of 3 attachment file\(s\) missing under .*\/work\/filestore\/erpdb_migcheck_\w+ \(at most 0 allowed\): \.\.\/\.\.\/\.\.\/etc\/passwd, cd\/cd34$/);
      const within = await filestore({ ...made.context, step: planned('filestore', { maxMissing: 2 }) });
      expect(within).to.have.property('outcome', 'done');
      expect(within).to.have.nested.property('facts.missing', 2);
      expect(within).to.have.nested.property('facts.warnings[0]').that.match(/cd\/cd34/);
    });
  });

  describe('disk', () => {
    it('passes with room for freeFactor times the database, and fails with both figures without', async () => {
      const room = await run(disk, 'disk', { freeFactor: 1 }).outcome;
      expect(room).to.have.property('outcome', 'done');
      expect(room).to.have.nested.property('facts.databaseBytes').that.is.above(0);
      const short = failure(await run(disk, 'disk', { freeFactor: 1e9 }).outcome);
      expect(short.error).to.match(/not enough space for the migration's files: [\d.]+ \w+ \(\d+ bytes\) free, 1000000000 × the database's [\d.]+ MB \(\d+ bytes\) = .* needed$/);
    });
  });
});
