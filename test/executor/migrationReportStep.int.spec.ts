import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { createPool, type Pool } from '#shared/db.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { report } from '#services/executor/migration/steps/report.ts';
import { emailsFromUserStreams } from '#services/executor/migration/userEmails.ts';
import { migrationStream } from '#services/migrations/domain/migration.ts';
import { createTestDatabase, testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { pdfToText } from '../migrations/report/pdfTools.ts';
import { migrationStepContext } from './fixtures/migrationStepsContext.ts';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const planned = (id: string, type: string, params: Record<string, unknown> = {}): PlannedStep => ({ id, type, params: { phase: 'steps', ...params } });
const PLAN = [planned('fetch', 'fetch'), planned('views', 'check', { phase: 'preflight' }), planned('backup_origin', 'backup'), planned('upgrade', 'erp'), planned('report', 'report')];
const OPS = 'user-ops-7f3a';

/** The executor's `report` step: the run's PDF from the migration's stream, as it stands while the step runs. */
describe('executor: the migration report step', function () {
  this.timeout(60_000);
  let pool: Pool;
  let store: EventStore;

  before(async () => {
    const url = await createTestDatabase('report_step');
    pool = createPool(url);
    await migrateEventStore(pool);
    store = createPgEventStore({ pool, connectionString: url });
  });
  after(async () => {
    await store?.close();
    await pool?.end();
  });

  it('stores report.pdf: the run in progress, its warnings, its failed attempt with the log, its artifacts, the requester by e-mail', async () => {
    const dataDir = runDir('report-step');
    const blobs = createFsBlobStore(dataDir);
    const adminUrl = (await testCluster()).urlFor('postgres');
    const { context } = migrationStepContext({ adminUrl, credentials: (database) => instanceCredentials('test master key', database), workingDatabase: 'forja_mig_report_step', dataDir, blobs, step: PLAN.at(-1)!, plan: PLAN });
    context.records = { store, blobs, emailsOf: (actors) => emailsFromUserStreams(store, actors) };
    const { slug } = context.migration;
    const run = { slug, number: 1, jobId: context.run.job.jobId };
    const { status: _status, runs: _runs, lastNumber: _last, deleted: _deleted, ...settings } = context.migration;
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 9, minute)).toISOString();
    const event = (type: string, data: object, minute: number, actor = 'system') => ({ type, data, metadata: { correlationId: 'c', causationId: 'c', actor, at: at(minute) } });
    await store.appendToStream(`user-${OPS}`, [event('UserRegistered', { userId: OPS, email: 'ops@example.com', role: 'developer', source: 'cli' }, 0)], { expectedVersion: 0 });
    await store.appendToStream(
      migrationStream(slug),
      [
        event('MigrationCreated', settings, 1, OPS),
        event('MigrationRunRequested', { ...run, kind: 'run', plan: PLAN, resumedFrom: null, reused: {}, skipped: [], skipPreflight: false }, 2, OPS),
        event('MigrationStepStarted', { ...run, step: 'fetch', attempt: 1 }, 3),
        event('MigrationStepCompleted', { ...run, step: 'fetch', durationMs: 1500, facts: { bytes: 1234, sha256: 'f'.repeat(64) } }, 3),
        event('MigrationStepStarted', { ...run, step: 'views', attempt: 1 }, 4),
        event('MigrationStepCompleted', { ...run, step: 'views', durationMs: 200, facts: { rows: 2, warnings: ['check views: expected 0 row(s), found 2 row(s)'] } }, 4),
        event('MigrationStepStarted', { ...run, step: 'backup_origin', attempt: 1 }, 5),
        event('MigrationStepCompleted', { ...run, step: 'backup_origin', durationMs: 900, facts: { artifact: { kind: 'backup', name: 'backup_origin.dump', key: `migrations/${slug}/runs/1/backup_origin.dump`, bytes: 99, sha256: 'b'.repeat(64) } } }, 5),
        event('MigrationStepStarted', { ...run, step: 'upgrade', attempt: 1 }, 6),
        event('MigrationStepFailed', { ...run, step: 'upgrade', durationMs: 4000, error: 'the ERP exited with 1', retryable: true, logTail: ['ERROR odoo.sql_db: bad query', 'ERROR: could not connect to the mail server'] }, 7),
        event('MigrationStepStarted', { ...run, step: 'upgrade', attempt: 2 }, 8),
        event('MigrationStepCompleted', { ...run, step: 'upgrade', durationMs: 61_000, facts: {} }, 9),
        event('MigrationStepStarted', { ...run, step: 'report', attempt: 1 }, 10),
      ],
      { expectedVersion: 0 },
    );
    const outcome = await report(context);
    expect(outcome).to.have.nested.property('facts.artifact.kind', 'report');
    expect(outcome).to.have.nested.property('facts.artifact.name', 'report.pdf');
    const pdf = await bytesOf(await blobs.get(`migrations/${slug}/runs/1/report.pdf`));
    expect(outcome).to.have.nested.property('facts.artifact.bytes', pdf.length);
    expect(existsSync(join(context.paths.run, 'scratch', 'report.pdf')), 'the scratch copy is gone once stored').to.equal(false);
    const text = pdfToText(pdf, dataDir, 'step-report');
    expect(text).to.include('Acme 16 to 17').and.include('16.0 -> 17.0').and.include('In progress').and.include('This run is still in progress');
    expect(text).to.match(/Requested by\s+ops@example\.com, 2026-11-23 09:02:00 UTC/);
    expect(text).to.match(/upgrade\s+erp\s+completed\s+2\s+2026-11-23 09:06:00\s+1 min 05 s/);
    expect(text).to.match(/report\s+report\s+running\s+1\s+2026-11-23 09:10:00/).and.include('(this report)');
    expect(text).to.include('check views: expected 0 row(s), found 2 row(s)');
    expect(text).to.match(/upgrade\s+attempt 1, 2026-11-23 09:07:00 UTC, retryable/).and.include('ERROR: could not connect to the mail server');
    expect(text).to.include('b'.repeat(64)).and.include('backup_origin.dump').and.include("by the run's report step");
  });

  it('fails, storing nothing, when the stream does not hold the run it reports', async () => {
    const dataDir = runDir('report-step');
    const blobs = createFsBlobStore(dataDir);
    const adminUrl = (await testCluster()).urlFor('postgres');
    const { context } = migrationStepContext({ adminUrl, credentials: (database) => instanceCredentials('test master key', database), workingDatabase: 'forja_mig_report_none', dataDir, blobs, step: PLAN.at(-1)!, plan: PLAN });
    context.records = { store, blobs, emailsOf: (actors) => emailsFromUserStreams(store, actors) };
    const error = await report(context).then(
      () => expect.fail('the step should have thrown'),
      (caught: Error) => caught,
    );
    expect(error.message).to.equal(`no migration ${context.migration.slug}`);
    expect(await blobs.stat(`migrations/${context.migration.slug}/runs/1/report.pdf`)).to.equal(null);
  });
});
