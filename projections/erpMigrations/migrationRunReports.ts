import type { Selectable } from 'kysely';
import type { ReportArtifact } from '#services/migrations/domain/migration.ts';
import type { ReadModel, ReadModelTransaction } from '../readModel.ts';
import type { MigrationRunReportsTable } from './migrationRunReports.table.ts';

export type MigrationRunReportRow = Selectable<MigrationRunReportsTable>;

/** Records a report generated on demand; the same event again changes nothing. */
export async function addRunReport(trx: ReadModelTransaction, event: { slug: string; number: number; artifact: ReportArtifact; by: string }, at: Date): Promise<void> {
  const { slug, number, artifact, by } = event;
  await trx
    .insertInto('migration_run_reports')
    .values({ slug, number, artifact_id: artifact.id, name: artifact.name, key: artifact.key, bytes: artifact.bytes, sha256: artifact.sha256, created_by: by, created_at: at })
    .onConflict((oc) => oc.columns(['slug', 'artifact_id']).doNothing())
    .execute();
}

/** A stop drops the runs and so their reports; a delete drops everything. */
export async function deleteRunReports(trx: ReadModelTransaction, slug: string): Promise<void> {
  await trx.deleteFrom('migration_run_reports').where('slug', '=', slug).execute();
}

/** The reports generated for a run, oldest first. */
export function runReports(db: ReadModel, slug: string, number: number): Promise<MigrationRunReportRow[]> {
  return db.selectFrom('migration_run_reports').selectAll().where('slug', '=', slug).where('number', '=', number).orderBy('artifact_id', 'desc').execute();
}
