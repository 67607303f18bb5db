import { DomainError } from '../decider/decider.ts';
import { decideNext } from './decideNext.ts';
import { evolveJob, isJobEnded, type JobState, type StepState } from './jobState.ts';
import type { InterruptReason, WorkflowEvent } from './workflowEvents.ts';

/**
 * The workflow's commands and their decisions, shared by every host decider: the host finds the
 * job the command names, calls `decideWorkflow`, and renames the events with its prefix.
 */
export type WorkflowCommand =
  | { type: 'StartStep'; jobId: string; step: string; attemptId: string; executor: string }
  /** `next`: start the step that follows in the same append, as this attempt (one append per step instead of two). */
  | { type: 'CompleteStep'; jobId: string; step: string; attemptId?: string; durationMs: number; facts: object; as?: 'skipped' | 'reused'; next?: { attemptId: string; executor: string } }
  | { type: 'FailStep'; jobId: string; step: string; attemptId?: string; durationMs: number; error: string; retryable: boolean; logTail: readonly string[] }
  | { type: 'InterruptStep'; jobId: string; step: string; attemptId?: string; reason: 'timeout'; durationMs: number }
  | { type: 'ReachGate'; jobId: string; step: string; attemptId?: string; message: string }
  | { type: 'ResolveGate'; jobId: string; step: string; decision: 'approved' | 'rejected'; by: string; note?: string }
  | { type: 'PauseJob'; jobId: string }
  | { type: 'ResumeJob'; jobId: string }
  | { type: 'CancelJob'; jobId: string; reason: string }
  /** Records the end the state already implies (every step done, or one failed for good). */
  | { type: 'FinishJob'; jobId: string };

export type WorkflowCommandType = WorkflowCommand['type'];

export const WORKFLOW_COMMAND_TYPES: readonly WorkflowCommandType[] = ['StartStep', 'CompleteStep', 'FailStep', 'InterruptStep', 'ReachGate', 'ResolveGate', 'PauseJob', 'ResumeJob', 'CancelJob', 'FinishJob'];

export const isWorkflowCommand = (command: { type: string }): command is WorkflowCommand => (WORKFLOW_COMMAND_TYPES as readonly string[]).includes(command.type);

/** The job a command names is not the one this stream runs now, or it has ended: the executor drops its work. */
export class JobSupersededError extends DomainError {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer the current job or has ended`);
  }
}

/** A result from an attempt that is no longer the step's current one (killed, timed out, or run again elsewhere). */
export class StaleAttemptError extends DomainError {
  constructor(step: string, attemptId: string | undefined) {
    super(`attempt ${attemptId ?? '?'} of step ${step} is not its current attempt`);
  }
}

function runningAttempt(job: JobState, step: string, attemptId: string | undefined): StepState & { status: 'running' } {
  const state = job.steps[step];
  if (state?.status !== 'running') throw new StaleAttemptError(step, attemptId);
  // Events written before attempt ids existed have none: their results are matched by step alone.
  if (attemptId !== undefined && state.attemptId !== undefined && state.attemptId !== attemptId) throw new StaleAttemptError(step, attemptId);
  return state;
}

/** The running step's interruption, when one runs: a pause or cancel records it in the same append. */
function interruptRunning(job: JobState, reason: InterruptReason): WorkflowEvent[] {
  return Object.entries(job.steps).flatMap(([step, state]): WorkflowEvent[] =>
    state.status === 'running' ? [{ type: 'StepInterrupted', data: { jobId: job.jobId, step, ...(state.attemptId ? { attemptId: state.attemptId } : {}), reason } }] : [],
  );
}

/** The next step's start, when the job goes straight on to one (no backoff to wait, no gate). */
function startNext(job: JobState, { attemptId, executor }: { attemptId: string; executor: string }): WorkflowEvent[] {
  const next = decideNext(job);
  if (next.type !== 'run' || next.delayMs > 0) return [];
  return [{ type: 'StepStarted', data: { jobId: job.jobId, step: next.step.id, attempt: next.attempt, attemptId, executor } }];
}

/** The job's end as the state after `events` implies it, if it ends there. */
function endAfter(job: JobState, events: WorkflowEvent[]): WorkflowEvent[] {
  const after = events.reduce(evolveJob, job);
  const next = decideNext(after);
  if (next.type === 'complete') return [{ type: 'JobSucceeded', data: { jobId: job.jobId } }];
  if (next.type === 'fail') return [{ type: 'JobFailed', data: { jobId: job.jobId, step: next.step, error: next.error } }];
  return [];
}

/**
 * Decides a workflow command on `job` (the job it names). A step's result ends the job in the same
 * append when it was the last step, or a failure the step's policy does not retry.
 */
export function decideWorkflow(job: JobState, command: WorkflowCommand): WorkflowEvent[] {
  const { jobId } = job;
  const active = () => {
    if (isJobEnded(job)) throw new JobSupersededError(jobId);
  };
  switch (command.type) {
    case 'StartStep': {
      active();
      if (job.status === 'paused') throw new DomainError(`job ${jobId} is paused; resume it first`);
      const next = decideNext(job);
      if (next.type !== 'run' || next.step.id !== command.step) {
        throw new DomainError(`step ${command.step} is not the next step of job ${jobId} (${next.type === 'run' ? next.step.id : next.type} is)`);
      }
      return [{ type: 'StepStarted', data: { jobId, step: command.step, attempt: next.attempt, attemptId: command.attemptId, executor: command.executor } }];
    }
    case 'CompleteStep': {
      active();
      const { step, attemptId, durationMs, facts, as, next } = command;
      runningAttempt(job, step, attemptId);
      const completed: WorkflowEvent[] = [{ type: 'StepCompleted', data: { jobId, step, ...(attemptId ? { attemptId } : {}), durationMs, facts, ...(as ? { as } : {}) } }];
      const ended = endAfter(job, completed);
      return [...completed, ...(ended.length > 0 || !next ? ended : startNext(completed.reduce(evolveJob, job), next))];
    }
    case 'FailStep': {
      active();
      const { step, attemptId, durationMs, error, retryable, logTail } = command;
      runningAttempt(job, step, attemptId);
      const failed: WorkflowEvent[] = [{ type: 'StepFailed', data: { jobId, step, ...(attemptId ? { attemptId } : {}), durationMs, error, retryable, logTail: [...logTail] } }];
      return [...failed, ...endAfter(job, failed)];
    }
    case 'InterruptStep': {
      active();
      const { step, attemptId, reason, durationMs } = command;
      runningAttempt(job, step, attemptId);
      const interrupted: WorkflowEvent[] = [{ type: 'StepInterrupted', data: { jobId, step, ...(attemptId ? { attemptId } : {}), reason, durationMs } }];
      return [...interrupted, ...endAfter(job, interrupted)];
    }
    case 'ReachGate': {
      active();
      runningAttempt(job, command.step, command.attemptId);
      return [{ type: 'GateReached', data: { jobId, step: command.step, ...(command.attemptId ? { attemptId: command.attemptId } : {}), message: command.message } }];
    }
    case 'ResolveGate': {
      active();
      if (job.steps[command.step]?.status !== 'waiting') throw new DomainError(`step ${command.step} of job ${jobId} is not waiting at a gate`);
      const { step, decision, by, note } = command;
      const resolved: WorkflowEvent[] = [{ type: 'GateResolved', data: { jobId, step, decision, by, ...(note ? { note } : {}) } }];
      return [...resolved, ...endAfter(job, resolved)];
    }
    case 'PauseJob':
      active();
      if (job.status === 'paused') return [];
      return [...interruptRunning(job, 'pause'), { type: 'JobPaused', data: { jobId } }];
    case 'ResumeJob':
      active();
      if (job.status !== 'paused') throw new DomainError(`job ${jobId} is ${job.status}, not paused`);
      return [{ type: 'JobResumed', data: { jobId } }];
    case 'CancelJob':
      if (isJobEnded(job)) return [];
      return [...interruptRunning(job, 'cancel'), { type: 'JobCancelled', data: { jobId, reason: command.reason } }];
    case 'FinishJob':
      if (isJobEnded(job)) return [];
      return endAfter(job, []);
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}
