import type { RunKind } from '#services/migrations/domain/migration.ts';
import type { JobStatus } from '#shared/workflow/jobState.ts';

/** Every run of every migration: one workflow job each. */
export interface MigrationRunsTable {
  slug: string;
  number: number;
  job_id: string;
  kind: RunKind;
  status: JobStatus;
  /** The failed step, else the last one done: where a resume starts from. */
  checkpoint: string | null;
  /** The run whose finished steps this one reuses (a resume), or whose pre-flight it overrides (run-anyway). */
  resumed_from: number | null;
  skip_preflight: boolean;
  /** Why a failed pre-flight was overridden (run-anyway). */
  reason: string | null;
  requested_by: string;
  /** `<step>: <error>` of a failed run, or the reason a run was cancelled. */
  error: string | null;
  /** When its first step started. */
  started_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
}

export interface MigrationRunsDb {
  migration_runs: MigrationRunsTable;
}
