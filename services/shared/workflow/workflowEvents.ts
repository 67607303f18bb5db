import type { DomainEvent } from '../eventStore/eventStore.ts';

/**
 * The workflow's events, defined once. A host stream carries them under its own prefix
 * (`Instance` + `StepStarted` = `InstanceStepStarted`), with its own fields added to the data (the
 * instance's slug, the status a job ends in). Fields marked optional did not exist in the first
 * instance events: the fold reads those old events as they are.
 */

export type InterruptReason = 'pause' | 'cancel' | 'timeout';

export interface StepStartedData {
  jobId: string;
  step: string;
  attempt: number;
  /** New for each start: a result must carry it, so a late result of a superseded attempt is refused. */
  attemptId?: string;
  /** Which executor runs the attempt. */
  executor?: string;
}

export interface StepCompletedData {
  jobId: string;
  step: string;
  attemptId?: string;
  durationMs: number;
  facts: object;
  /** Completed without doing the work: skipped (nothing to do) or reused (an earlier job's result). */
  as?: 'skipped' | 'reused';
}

export interface StepFailedData {
  jobId: string;
  step: string;
  attemptId?: string;
  durationMs: number;
  error: string;
  /** May succeed if run again (a network error), as opposed to a mistake that will fail again. Absent in the first events: those failures ended the job. */
  retryable?: boolean;
  logTail: string[];
}

export interface StepInterruptedData {
  jobId: string;
  step: string;
  attemptId?: string;
  reason: InterruptReason;
  durationMs?: number;
}

export interface GateReachedData {
  jobId: string;
  step: string;
  attemptId?: string;
  /** What the operator is asked to check or decide. */
  message: string;
}

export interface GateResolvedData {
  jobId: string;
  step: string;
  decision: 'approved' | 'rejected';
  by: string;
  note?: string;
}

export interface JobEndedData {
  jobId: string;
}

export interface JobFailedData {
  jobId: string;
  step: string;
  error: string;
}

export interface JobCancelledData {
  jobId: string;
  reason: string;
}

/** The workflow events without a host prefix. */
export type WorkflowEvent =
  | DomainEvent<'StepStarted', StepStartedData>
  | DomainEvent<'StepCompleted', StepCompletedData>
  | DomainEvent<'StepFailed', StepFailedData>
  | DomainEvent<'StepInterrupted', StepInterruptedData>
  | DomainEvent<'GateReached', GateReachedData>
  | DomainEvent<'GateResolved', GateResolvedData>
  | DomainEvent<'JobPaused', JobEndedData>
  | DomainEvent<'JobResumed', JobEndedData>
  | DomainEvent<'JobSucceeded', JobEndedData>
  | DomainEvent<'JobFailed', JobFailedData>
  | DomainEvent<'JobCancelled', JobCancelledData>;

export type WorkflowEventType = WorkflowEvent['type'];

export const WORKFLOW_EVENT_TYPES: readonly WorkflowEventType[] = [
  'StepStarted',
  'StepCompleted',
  'StepFailed',
  'StepInterrupted',
  'GateReached',
  'GateResolved',
  'JobPaused',
  'JobResumed',
  'JobSucceeded',
  'JobFailed',
  'JobCancelled',
];

/** The events that stop a running step: the relay sends `control.<kind>.<id>` for them. */
export const STOPPING_EVENT_TYPES: readonly WorkflowEventType[] = ['JobPaused', 'JobCancelled'];

/** The host's event type names: `prefixed('Instance', 'StepStarted')` = `InstanceStepStarted`. */
export const prefixed = (prefix: string, type: WorkflowEventType): string => `${prefix}${type}`;

/** A host event read as a workflow event, or null when it is one of the host's own. */
export function asWorkflowEvent(prefix: string, event: DomainEvent): WorkflowEvent | null {
  if (!event.type.startsWith(prefix)) return null;
  const type = event.type.slice(prefix.length) as WorkflowEventType;
  return WORKFLOW_EVENT_TYPES.includes(type) ? ({ type, data: event.data } as WorkflowEvent) : null;
}
