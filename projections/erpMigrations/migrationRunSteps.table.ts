import type { JSONColumnType } from 'kysely';
import type { StepStatus } from '#shared/workflow/jobState.ts';

/** A step's status on the run page: the job's, with a step a cancel interrupted shown as `cancelled`. */
export type MigrationStepStatus = StepStatus | 'cancelled';

/** The steps of every run, in plan order, pending ones included. */
export interface MigrationRunStepsTable {
  job_id: string;
  position: number;
  slug: string;
  number: number;
  step_id: string;
  /** The plan step's `type`: which implementation runs it. */
  kind: string;
  title: string;
  phase: 'preflight' | 'main';
  status: MigrationStepStatus;
  attempts: number;
  started_at: Date | null;
  ended_at: Date | null;
  /** int8: a gate may wait for days. */
  duration_ms: number | null;
  error: string | null;
  /** jsonb: the completed step's `facts.warnings`, else empty. */
  warnings: JSONColumnType<string[]>;
  /** What the operator is asked, while the step waits at a gate. */
  gate: string | null;
  /** jsonb: what a completed (or reused) step reported; null otherwise. */
  facts: JSONColumnType<object | null, string | null, string | null>;
}

export interface MigrationRunStepsDb {
  migration_run_steps: MigrationRunStepsTable;
}
