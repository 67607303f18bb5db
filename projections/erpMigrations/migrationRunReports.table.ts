/** Reports generated on demand for a run (MigrationReportGenerated): artifacts no step made. */
export interface MigrationRunReportsTable {
  slug: string;
  number: number;
  /** int8: run × 1000 + 999, 998, … (services/migrations/domain/migrationReports.ts). */
  artifact_id: number;
  name: string;
  /** Where it is in blob storage. */
  key: string;
  /** int8. */
  bytes: number;
  sha256: string;
  /** The user who asked for it. */
  created_by: string;
  created_at: Date;
}

export interface MigrationRunReportsDb {
  migration_run_reports: MigrationRunReportsTable;
}
