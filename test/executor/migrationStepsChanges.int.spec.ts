import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import { backup } from '#services/executor/migration/steps/backup.ts';
import { restoreCheckpoint, takeCheckpoint } from '#services/executor/migration/steps/checkpoint.ts';
import { checkpointDatabaseOf } from '#services/migrations/domain/workingNames.ts';
import { dump } from '#services/executor/migration/steps/dump.ts';
import { filestoreArchive } from '#services/executor/migration/steps/filestoreArchive.ts';
import { sql as sqlStep } from '#services/executor/migration/steps/sql.ts';
import { uninstall } from '#services/executor/migration/steps/uninstall.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { bsdtar, freshName, memoryLog, sql } from './fixtures/databaseFixtures.ts';
import { MIGRATION_ERP_TABLES, migrationStepContext, type StepContextOptions } from './fixtures/migrationStepsContext.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The steps that change the working database (under the checkpoint rules) and those that make the run's artifacts. */
describe('executor: migration steps that change the database or make artifacts', function () {
  this.timeout(30_000);
  let adminUrl: string;
  let work: string;
  let dataDir: string;
  let blobs: BlobStore;

  /** As the working database's role, in the database or in its snapshot. */
  const asOwner = <Row extends object = Record<string, unknown>>(text: string, database = work) => sql<Row>(urlAs(adminUrl, database, credentials(work)), database, text);
  const crons = async (database = work) => (await asOwner<{ name: string; active: boolean }>('select name, active from ir_cron order by id', database)).map((row) => `${row.name}:${row.active}`);
  const planned = (id: string, type: string, params: Record<string, unknown> = {}): PlannedStep => ({ id, type, params: { phase: 'steps', ...params } });
  const contextFor = (step: PlannedStep, options: Partial<StepContextOptions> = {}) => migrationStepContext({ adminUrl, credentials, workingDatabase: work, dataDir, blobs, step, ...options });
  const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('the step should have thrown'), (error: Error) => error);

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
  });
  beforeEach(async () => {
    dataDir = runDir('migration-changes');
    blobs = createFsBlobStore(join(dataDir, 'blobs'));
    work = freshName('migwork');
    await erpDatabases({ adminUrl, log: memoryLog().stream, credentials }).recreate(work);
    await asOwner(MIGRATION_ERP_TABLES);
  });

  describe('checkpoints', () => {
    it('names the snapshot as the migration recorded it, or <work>_ck (within 63 bytes) for one created before it was recorded', () => {
      expect(checkpointDatabaseOf({ workingDatabase: 'forjamig_acme', checkpointDatabase: 'forjack_acme' })).to.equal('forjack_acme');
      expect(checkpointDatabaseOf({ workingDatabase: 'forja_mig_acme' })).to.equal('forja_mig_acme_ck');
      expect(checkpointDatabaseOf({ workingDatabase: `forja_mig_${'a'.repeat(53)}` })).to.have.length(63).and.match(/^forja_mig_a+_[0-9a-f]{8}_ck$/);
    });

    it('takes a snapshot and rebuilds the working database from it; without one, says so', async () => {
      const { context } = contextFor(planned('erp_upgrade', 'erp'));
      expect(await rejection(restoreCheckpoint(context))).to.have.property('message', `cannot rebuild ${work} from its last checkpoint: there is no snapshot ${work}_ck (a run must restore the input first)`);
      await takeCheckpoint(context);
      await asOwner(`delete from ir_cron`);
      await restoreCheckpoint(context);
      expect(await crons()).to.deep.equal(['Mail: send queue:true', 'Bank sync:true']);
    });
  });

  describe('sql', () => {
    const disableCrons = (id = 'pre_cleanup') => planned(id, 'sql', { sql: `update ir_cron set active = false, name = name || '+'` });

    it('applies the SQL once, then takes a checkpoint; the same step again finds its marker and changes nothing', async () => {
      const step = disableCrons();
      const { context, lines } = contextFor(step, { runNumber: 3 });
      expect(await sqlStep(context)).to.deep.equal({ outcome: 'done', facts: {} });
      expect(await crons()).to.deep.equal(['Mail: send queue+:false', 'Bank sync+:false']);
      expect(await crons(`${work}_ck`), 'the checkpoint after it').to.deep.equal(['Mail: send queue+:false', 'Bank sync+:false']);
      expect(await asOwner('select key from forja_migration_marks')).to.deep.equal([{ key: '3:pre_cleanup' }]);

      // The executor died after COMMIT, before recording the completion: the step runs again.
      expect(await sqlStep(contextFor(step, { runNumber: 3 }).context)).to.deep.equal({ outcome: 'done', facts: { skippedAsDone: true } });
      expect(await crons()).to.deep.equal(['Mail: send queue+:false', 'Bank sync+:false']);
      expect(lines.join('\n')).to.include(`sql pre_cleanup: applied to ${work}`);
    });

    it('a failing SQL leaves no marker and no partial change', async () => {
      const step = planned('broken', 'sql', { sql: `update ir_cron set active = false; insert into ir_cron (name, active) values ('new', true); select 1 / 0` });
      const { context } = contextFor(step);
      await takeCheckpoint(context);
      expect((await rejection(sqlStep(context))).message).to.match(/division by zero/);
      expect(await crons()).to.deep.equal(['Mail: send queue:true', 'Bank sync:true']);
      expect(await asOwner(`select 1 from pg_tables where tablename = 'forja_migration_marks'`)).to.have.length(0);
    });

    it('dirty: rebuilds the database from the checkpoint first, so a half-applied change is gone', async () => {
      const step = disableCrons();
      await takeCheckpoint(contextFor(step).context);
      // What a killed attempt left: half of some change, committed.
      await asOwner(`insert into ir_cron (name, active) values ('half-done', true)`);
      const { context, lines } = contextFor(step, { dirty: true });
      expect(await sqlStep(context)).to.deep.equal({ outcome: 'done', facts: {} });
      expect(await crons()).to.deep.equal(['Mail: send queue+:false', 'Bank sync+:false']);
      expect(lines.join('\n')).to.match(/may have left a half-done change: rebuilding .* from checkpoint/);
    });

    it('dirty without a checkpoint: fails clearly and changes nothing', async () => {
      const error = await rejection(sqlStep(contextFor(disableCrons(), { dirty: true }).context));
      expect(error.message).to.match(/there is no snapshot .*_ck/);
      expect(await crons()).to.deep.equal(['Mail: send queue:true', 'Bank sync:true']);
    });
  });

  describe('uninstall', () => {
    it('marks the installed ones to remove, reports the others, and takes a checkpoint', async () => {
      const { context } = contextFor(planned('drop_themes', 'uninstall', { modules: ['theme_fancy', 'crm', 'nope'] }));
      expect(await uninstall(context)).to.deep.equal({
        outcome: 'done',
        facts: {
          marked: ['theme_fancy'],
          notInstalled: [
            { name: 'crm', state: 'uninstalled' },
            { name: 'nope', state: 'unknown' },
          ],
        },
      });
      const states = `select name, state from ir_module_module where name in ('theme_fancy', 'crm') order by name`;
      const expected = [
        { name: 'crm', state: 'uninstalled' },
        { name: 'theme_fancy', state: 'to remove' },
      ];
      expect(await asOwner(states)).to.deep.equal(expected);
      expect(await asOwner(states, `${work}_ck`)).to.deep.equal(expected);
    });
  });

  describe('dump and backup', () => {
    for (const [kind, step] of [
      ['dump', dump],
      ['backup', backup],
    ] as const) {
      it(`${kind}: a pg_dump -Fc of the working database stored as a run artifact, with its size and sha256, the local file removed`, async () => {
        const { context } = contextFor(planned(`${kind}_result`, kind), { runNumber: 2 });
        const outcome = await step(context);
        const key = `migrations/${context.migration.slug}/runs/2/${kind}_result.dump`;
        expect(outcome).to.have.property('outcome', 'done');
        const { artifact } = (outcome as { facts: { artifact: { kind: string; name: string; key: string; bytes: number; sha256: string } } }).facts;
        const stored = await bytesOf(await blobs.get(key));
        expect(artifact).to.deep.equal({ kind, name: `${kind}_result.dump`, key, bytes: stored.length, sha256: createHash('sha256').update(stored).digest('hex'), erpVersion: '16.0' });
        expect(stored.subarray(0, 5).toString()).to.equal('PGDMP');
        expect(readdirSync(join(context.paths.run, 'scratch')), 'the local copy is removed once stored').to.deep.equal([]);
      });
    }

    it('stores the dump without an ERP version, saying why, when the database does not tell it', async () => {
      await asOwner(`update ir_module_module set latest_version = null where name = 'base'`);
      const first = contextFor(planned('dump_result', 'dump'));
      const stored = (await dump(first.context)) as { facts: { artifact: { kind: string } } };
      expect(stored.facts.artifact.kind).to.equal('dump');
      expect(stored.facts.artifact).not.to.have.property('erpVersion');
      expect(first.lines.join('\n')).to.include(`dump_result: the base module has no version in ${work}; the artifact's ERP version is not recorded`);
      await asOwner('drop table ir_module_module');
      const second = contextFor(planned('dump_result', 'dump'));
      const outcome = (await dump(second.context)) as { facts: { artifact: object } };
      expect(outcome.facts.artifact).not.to.have.property('erpVersion');
      expect(second.lines.join('\n')).to.match(/dump_result: could not read the base module's version in \S+ \(.*ir_module_module.*\); the artifact's ERP version is not recorded/);
    });
  });

  describe('filestore_archive', () => {
    it('stores a tar.gz of the working filestore as a filestore artifact', async () => {
      const { context } = contextFor(planned('filestore_result', 'filestore_archive'));
      mkdirSync(join(context.paths.filestore, work, 'ab'), { recursive: true });
      writeFileSync(join(context.paths.filestore, work, 'ab', 'ab12'), 'invoice');
      const outcome = await filestoreArchive(context);
      expect(outcome).to.have.nested.property('facts.artifact.kind', 'filestore');
      expect(outcome).to.have.nested.property('facts.artifact.name', 'filestore_result.tar.gz');
      const copy = join(dataDir, 'copy.tar.gz');
      writeFileSync(copy, await bytesOf(await blobs.get(`migrations/${context.migration.slug}/runs/1/filestore_result.tar.gz`)));
      expect(bsdtar(['-tzf', copy]).split('\n')).to.include(`./${work}/ab/ab12`);
      expect(existsSync(join(context.paths.run, 'filestore_result.tar.gz'))).to.equal(false);
    });
  });
});
