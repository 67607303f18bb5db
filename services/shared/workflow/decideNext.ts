import type { JobState } from './jobState.ts';
import { retryDelayMs, type PlannedStep } from './plan.ts';

/** What the runner does next for a job: a pure reading of its state. */
export type NextMove =
  /** Start `step` as attempt `attempt`, after `delayMs` (a retry's backoff). */
  | { type: 'run'; step: PlannedStep; attempt: number; delayMs: number }
  /** A step waits at a gate for the operator: nothing runs until it is resolved. */
  | { type: 'wait'; step: string; gate: string }
  /** Every step is done but the job has not been recorded as succeeded. */
  | { type: 'complete' }
  /** A step failed for good but the job has not been recorded as failed. */
  | { type: 'fail'; step: string; error: string }
  | { type: 'paused' }
  /** The job succeeded, failed or was cancelled: nothing to do. */
  | { type: 'ended'; status: JobState['status'] };

/**
 * The first step that is not done decides: a pending one runs (resuming after a pause or a lost
 * executor runs it again, it never skips ahead), a running one whose executor was lost runs again
 * as a new attempt, a retryable failure within the step's policy runs again after its backoff,
 * any other failure fails the job.
 */
export function decideNext(job: JobState): NextMove {
  if (job.status === 'succeeded' || job.status === 'failed' || job.status === 'cancelled') return { type: 'ended', status: job.status };
  if (job.status === 'paused') return { type: 'paused' };
  for (const step of job.plan) {
    const state = job.steps[step.id];
    if (!state) continue;
    switch (state.status) {
      case 'completed':
      case 'skipped':
      case 'reused':
        continue;
      case 'pending':
      case 'running':
        return { type: 'run', step, attempt: state.attempts + 1, delayMs: 0 };
      case 'waiting':
        return { type: 'wait', step: step.id, gate: state.gate };
      case 'failed':
        return retriesLeft(step, state.attempts) && state.retryable
          ? { type: 'run', step, attempt: state.attempts + 1, delayMs: retryDelayMs(step.retries, state.attempts + 1) }
          : { type: 'fail', step: step.id, error: state.error };
      default: {
        const unknown: never = state;
        return unknown;
      }
    }
  }
  return { type: 'complete' };
}

/** True while the step has been started no more than its retry policy allows. */
export const retriesLeft = (step: PlannedStep, attempts: number): boolean => attempts <= (step.retries?.count ?? 0);
