import { erpMigrationsProjection } from '#projections/erpMigrations/erpMigrations.ts';
import { artifactById, runArtifacts } from '#projections/erpMigrations/migrationRuns.ts';
import type { ReadModel } from '#projections/readModel.ts';
import type { MigrationEvent } from '#services/migrations/domain/migration.ts';
import { event, projectionSpec, type EventDraft } from '#test/support/projectionSpec.ts';
import { ANA, story } from '../migrations/report/reportFixture.ts';

const STREAM = 'migration-acme-17';
const drafts = (events: ReadonlyArray<MigrationEvent & { metadata?: { actor: string; at: string } }>): EventDraft[] =>
  events.map(({ type, data, metadata }) => event({ type, data } as MigrationEvent, { stream: STREAM, ...(metadata ? { metadata } : {}) }));
const generated = (id: number, name: string): MigrationEvent => ({
  type: 'MigrationReportGenerated',
  data: { slug: 'acme-17', number: 2, artifact: { id, kind: 'report', name, key: `migrations/acme-17/runs/2/${name}`, bytes: 4096, sha256: 'c'.repeat(64) }, by: ANA },
});
const RUN_2 = { slug: 'acme-17', job_id: 'job-2', number: 2 };
/** The run's artifacts as `id kind name`. */
const artifactsOf = async (db: ReadModel) => (await runArtifacts(db, RUN_2)).map((artifact) => `${artifact.id} ${artifact.kind} ${artifact.name}`);

describe('projection erp_migrations: reports generated on demand', () => {
  const spec = projectionSpec(erpMigrationsProjection);

  it("adds a report to its run's artifacts, after the steps' own, and finds it by id", async () => {
    await spec.given(drafts(story())).when(drafts([generated(2999, 'a.pdf'), generated(2998, 'b.pdf')])).then(artifactsOf, ['2004 dump dump_result.dump', '2999 report a.pdf', '2998 report b.pdf']);
    await spec
      .given(drafts(story()))
      .when(drafts([generated(2999, 'a.pdf')]))
      .then(async (db) => (await artifactById(db, 'acme-17', 2999))?.key, 'migrations/acme-17/runs/2/a.pdf');
  });

  it('drops the reports with the runs when the migration is stopped or deleted', async () => {
    const stopped: MigrationEvent = { type: 'MigrationStopped', data: { slug: 'acme-17', runs: [1, 2] } };
    await spec.given(drafts([...story(), generated(2999, 'a.pdf')])).when(drafts([stopped])).then(artifactsOf, []);
    await spec.given(drafts([...story(), generated(2999, 'a.pdf')])).when(drafts([{ type: 'MigrationDeleted', data: { slug: 'acme-17' } }])).then(async (db) => artifactById(db, 'acme-17', 2999), undefined);
  });

  it('comes out the same when its events are delivered again or replayed one by one', async () => {
    await spec.given(drafts(story())).when(drafts([generated(2999, 'a.pdf'), generated(2998, 'b.pdf')])).replayTwice();
  });
});
