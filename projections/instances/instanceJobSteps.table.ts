import type { JSONColumnType } from 'kysely';

/** The steps of every job, pending ones included, with timings. */
export interface InstanceJobStepsTable {
  job_id: string;
  position: number;
  slug: string;
  step: string;
  /** pending, running, completed, skipped, reused, failed (a retryable failure stays until the retry starts), waiting or cancelled. */
  state: string;
  attempts: number;
  started_at: Date | null;
  ended_at: Date | null;
  duration_ms: number | null;
  error: string | null;
  /** jsonb: the failed attempt's last log lines, written as a JSON string; null unless the step failed. */
  log_tail: JSONColumnType<string[] | null, string | null, string | null>;
}

export interface InstanceJobStepsDb {
  instance_job_steps: InstanceJobStepsTable;
}
