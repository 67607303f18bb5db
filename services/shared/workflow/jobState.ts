import type { JobPlan, PlannedStep } from './plan.ts';
import type { InterruptReason, WorkflowEvent } from './workflowEvents.ts';

/**
 * A job's state as a pure fold of its workflow events, reusable by any stream that hosts jobs.
 * `attempts` counts the starts of a step, across interruptions and retries.
 */
export type StepState =
  | { status: 'pending'; attempts: number; interrupted?: InterruptReason }
  | { status: 'running'; attempts: number; attemptId: string | undefined; executor: string | undefined }
  | { status: 'completed'; attempts: number; facts: object }
  | { status: 'skipped'; attempts: number }
  | { status: 'reused'; attempts: number; facts: object }
  | { status: 'failed'; attempts: number; error: string; retryable: boolean }
  | { status: 'waiting'; attempts: number; attemptId: string | undefined; gate: string };

export type StepStatus = StepState['status'];

export type JobStatus = 'queued' | 'running' | 'waiting' | 'paused' | 'succeeded' | 'failed' | 'cancelled';

export interface JobState extends JobPlan {
  status: JobStatus;
  steps: Readonly<Record<string, StepState>>;
  /** Why the job failed or was cancelled: `<step>: <error>`, or the cancel reason. */
  error: string | null;
}

/** Statuses after which nothing more happens to the job. */
export const ENDED_JOB_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

export const isJobEnded = (job: Pick<JobState, 'status'>): boolean => ENDED_JOB_STATUSES.includes(job.status);

/** A step that needs no more work: done, skipped, or reused from before. */
export const isStepDone = (step: StepState | undefined): boolean => step?.status === 'completed' || step?.status === 'skipped' || step?.status === 'reused';

/** A job as its request event leaves it: every step pending. */
export function newJob(request: JobPlan): JobState {
  return {
    jobId: request.jobId,
    kind: request.kind,
    plan: request.plan,
    status: 'queued',
    steps: Object.fromEntries(request.plan.map((step) => [step.id, { status: 'pending', attempts: 0 }])),
    error: null,
  };
}

export const plannedStep = (job: JobPlan, id: string): PlannedStep | undefined => job.plan.find((step) => step.id === id);

/** Folds one workflow event into the job; events of another job, or for a step outside the plan, change nothing. */
export function evolveJob(job: JobState, event: WorkflowEvent): JobState {
  if (event.data.jobId !== job.jobId) return job;
  const at = (step: string, state: StepState): JobState => (job.steps[step] === undefined ? job : { ...job, steps: { ...job.steps, [step]: state } });
  const attempts = (step: string) => job.steps[step]?.attempts ?? 0;
  switch (event.type) {
    case 'StepStarted': {
      const { step, attempt, attemptId, executor } = event.data;
      const next = at(step, { status: 'running', attempts: attempt, attemptId, executor });
      return next === job ? job : { ...next, status: 'running' };
    }
    case 'StepCompleted': {
      const { step, facts, as } = event.data;
      const done: StepState = as === 'skipped' ? { status: 'skipped', attempts: attempts(step) } : as === 'reused' ? { status: 'reused', attempts: attempts(step), facts } : { status: 'completed', attempts: attempts(step), facts };
      return at(step, done);
    }
    case 'StepFailed': {
      const { step, error, retryable } = event.data;
      const next = at(step, { status: 'failed', attempts: attempts(step), error, retryable: retryable ?? false });
      // The first instance events had no JobFailed: a failed step ended its job.
      return retryable === undefined && next !== job ? { ...next, status: 'failed', error: `${step}: ${error}` } : next;
    }
    case 'StepInterrupted': {
      const { step, reason } = event.data;
      if (reason === 'timeout') {
        const timeoutS = plannedStep(job, step)?.timeoutS;
        return at(step, { status: 'failed', attempts: attempts(step), error: `timed out${timeoutS ? ` after ${timeoutS} s` : ''}`, retryable: true });
      }
      return at(step, { status: 'pending', attempts: attempts(step), interrupted: reason });
    }
    case 'GateReached': {
      const next = at(event.data.step, { status: 'waiting', attempts: attempts(event.data.step), attemptId: event.data.attemptId, gate: event.data.message });
      return next === job ? job : { ...next, status: 'waiting' };
    }
    case 'GateResolved': {
      const { step, decision, by } = event.data;
      const resolved: StepState =
        decision === 'approved'
          ? { status: 'completed', attempts: attempts(step), facts: { approvedBy: by } }
          : { status: 'failed', attempts: attempts(step), error: `rejected by ${by}`, retryable: false };
      const next = at(step, resolved);
      return next === job ? job : { ...next, status: 'running' };
    }
    case 'JobPaused':
      return { ...job, status: 'paused' };
    case 'JobResumed':
      return { ...job, status: Object.values(job.steps).some((step) => step.status === 'waiting') ? 'waiting' : 'queued' };
    case 'JobSucceeded':
      return { ...job, status: 'succeeded', error: null };
    case 'JobFailed':
      return { ...job, status: 'failed', error: `${event.data.step}: ${event.data.error}` };
    case 'JobCancelled':
      return { ...job, status: 'cancelled', error: event.data.reason };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}
