import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { isJobEnded } from '#shared/workflow/jobState.ts';
import { decideWorkflow, JobSupersededError, type WorkflowCommand } from '#shared/workflow/workflowDecide.ts';
import { prefixed, type WorkflowEvent } from '#shared/workflow/workflowEvents.ts';
import {
  demoDataRefusal,
  evolveInstance,
  initialInstanceState,
  instancePlan,
  INSTANCE_WORKFLOW_PREFIX,
  type ActionReason,
  type InstanceAction,
  type InstanceEvent,
  type InstanceSettings,
  type InstanceState,
  type LiveInstance,
  type ShellCloseReason,
  type ShellRuntime,
  type StepFacts,
} from './instance.ts';
import { refuseAction, type ActionView } from './instanceActions.ts';
import { refuseShell } from './instanceShell.ts';

export { JobSupersededError } from '#shared/workflow/workflowDecide.ts';

/**
 * Commands on one instance. `RequestInstance` and `RequestAction` come from people (through the
 * control-plane) or from the executor's idle sweep; the step commands come from the executor
 * running the current job.
 */
export type InstanceCommand =
  | { type: 'RequestInstance'; settings: InstanceSettings; jobId: string }
  /** `headCommit`: the branch head a push announced, when the host said it. */
  | { type: 'RequestAction'; action: InstanceAction | 'sleep'; jobId: string; reason: ActionReason; headCommit?: string }
  /** The executor's reports on the current job's steps (the workflow kernel's commands). */
  | Exclude<InstanceWorkflowCommand, { type: 'CompleteStep' }>
  | (Extract<InstanceWorkflowCommand, { type: 'CompleteStep' }> & { facts: StepFacts })
  | { type: 'ReportProcessExit'; exitCode: number | null; logTail: string[] }
  /** The ERP router saw a request for the instance: recorded only while it runs (a visit to a sleeping one wakes it instead). */
  | { type: 'RecordVisit' }
  /** Web opens and closes a developer's shell (services/instances/domain/instanceShell.ts says when one may open). */
  | { type: 'OpenShell'; sessionId: string; user: string; runtime: ShellRuntime }
  | { type: 'CloseShell'; sessionId: string; durationMs: number; reason: ShellCloseReason }
  | { type: 'PurgeInstance' };

/** The workflow commands an instance job takes: instance jobs have no gates and are never paused. */
type InstanceWorkflowCommand = Exclude<WorkflowCommand, { type: 'ReachGate' | 'ResolveGate' | 'PauseJob' | 'ResumeJob' | 'CancelJob' }>;

/** The slug is held by another instance: the caller tries the next slug. */
export class InstanceSlugTakenError extends DomainError {
  constructor() {
    super('the slug is taken');
  }
}

/** The folded state as the action rules see it. */
export const actionView = (state: LiveInstance): ActionView => ({
  slug: state.slug,
  status: state.status,
  stage: state.stage,
  jobActive: !isJobEnded(state.job),
  jobKind: state.job.kind,
  provisioned: state.provisioned,
});

/**
 * A push that finds a job running is remembered rather than dropped: one rebuild runs when the job
 * ends, and later pushes coalesce into it. A destroy in progress makes the push moot.
 */
function deferPush(instance: LiveInstance, command: Extract<InstanceCommand, { type: 'RequestAction' }>): InstanceEvent[] | null {
  if (command.reason !== 'push' || command.action !== 'rebuild' || isJobEnded(instance.job) || instance.job.kind === 'destroy' || instance.status === 'destroyed') return null;
  const jobId = instance.pendingRebuild?.jobId ?? command.jobId;
  return [{ type: 'InstanceRebuildDeferred', data: { slug: instance.slug, jobId, ...(command.headCommit ? { headCommit: command.headCommit } : {}) } }];
}

/** When a job ends (either way), the rebuild a push deferred is requested in the same append. */
function pendingRebuild(instance: LiveInstance): InstanceEvent[] {
  if (!instance.pendingRebuild || instance.job.kind === 'destroy') return [];
  const plan = instancePlan('rebuild', instance.provisioned);
  return [{ type: 'InstanceActionRequested', data: { slug: instance.slug, action: 'rebuild', jobId: instance.pendingRebuild.jobId, reason: 'push', plan } }];
}

function live(state: InstanceState): LiveInstance {
  if (state.status === 'none' || (state.status === 'destroyed' && state.purged)) throw new DomainError('no such instance', 'not_found');
  return state;
}

/** The executor's step reports only count for the current job. */
function currentJob(state: LiveInstance, jobId: string) {
  if (state.job.jobId !== jobId || isJobEnded(state.job)) throw new JobSupersededError(jobId);
  return state.job;
}

/** A destroy stops the job it finds running: its running step is recorded as interrupted, and the executor kills it. */
function cancelRunningJob(instance: LiveInstance, reason: string): InstanceEvent[] {
  if (isJobEnded(instance.job)) return [];
  return decideWorkflow(instance.job, { type: 'CancelJob', jobId: instance.job.jobId, reason }).map((event) => asInstanceEvent(instance, event));
}

/** A workflow event in the instance stream: prefixed, with the slug, and a succeeded job says what the instance became. */
function asInstanceEvent(instance: LiveInstance, event: WorkflowEvent): InstanceEvent {
  const extra = event.type === 'JobSucceeded' ? { kind: instance.job.kind, status: outcome(instance.job.kind) } : {};
  return { type: prefixed(INSTANCE_WORKFLOW_PREFIX, event.type), data: { slug: instance.slug, ...event.data, ...extra } } as InstanceEvent;
}

/** A step report, decided by the workflow kernel; a job that ends requests the rebuild a push deferred, in the same append. */
function decideStep(instance: LiveInstance, command: InstanceWorkflowCommand): InstanceEvent[] {
  const job = currentJob(instance, command.jobId);
  const events = decideWorkflow(job, command).map((event) => asInstanceEvent(instance, event));
  const ends = events.some((event) => event.type === 'InstanceJobSucceeded' || event.type === 'InstanceJobFailed');
  return ends ? [...events, ...pendingRebuild(instance)] : events;
}

function decide(command: InstanceCommand, state: InstanceState): InstanceEvent[] {
  if (command.type === 'RequestInstance') {
    if (state.status !== 'none') throw new InstanceSlugTakenError();
    const refusal = demoDataRefusal(command.settings);
    if (refusal) throw new DomainError(refusal, 'invalid');
    return [{ type: 'InstanceRequested', data: { ...command.settings, jobId: command.jobId, plan: instancePlan('provision', false) } }];
  }
  const instance = live(state);
  const slug = instance.slug;
  switch (command.type) {
    case 'RequestAction': {
      const deferred = deferPush(instance, command);
      if (deferred) return deferred;
      const refusal = refuseAction(command.action, actionView(instance));
      if (refusal) throw new DomainError(refusal, 'conflict');
      const head = command.headCommit ? { headCommit: command.headCommit } : {};
      const plan = instancePlan(command.action, instance.provisioned);
      const cancelled = command.action === 'destroy' ? cancelRunningJob(instance, 'destroy') : [];
      return [...cancelled, { type: 'InstanceActionRequested', data: { slug, action: command.action, jobId: command.jobId, reason: command.reason, ...head, plan } }];
    }
    case 'StartStep':
    case 'CompleteStep':
    case 'FailStep':
    case 'InterruptStep':
    case 'FinishJob':
      return decideStep(instance, command);
    case 'ReportProcessExit':
      // Only a running instance with no job can die unexpectedly: during a job the job itself reports.
      if (instance.status !== 'running' || !isJobEnded(instance.job)) return [];
      return [{ type: 'InstanceProcessExited', data: { slug, exitCode: command.exitCode, logTail: command.logTail } }];
    case 'RecordVisit':
      return instance.status === 'running' ? [{ type: 'InstanceVisited', data: { slug } }] : [];
    case 'OpenShell': {
      if (instance.openShells?.includes(command.sessionId)) return [];
      const refusal = refuseShell(instance);
      if (refusal) throw new DomainError(refusal, 'conflict');
      return [{ type: 'InstanceShellOpened', data: { slug, sessionId: command.sessionId, user: command.user, runtime: command.runtime } }];
    }
    case 'CloseShell':
      // Closed once: a second close (web retrying, or a session never opened) records nothing.
      if (!instance.openShells?.includes(command.sessionId)) return [];
      return [{ type: 'InstanceShellClosed', data: { slug, sessionId: command.sessionId, durationMs: Math.max(0, Math.round(command.durationMs)), reason: command.reason } }];
    case 'PurgeInstance':
      if (instance.status !== 'destroyed') throw new DomainError(`${slug} is ${instance.status}; destroy it before purging`);
      return [{ type: 'InstancePurged', data: { slug } }];
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

function outcome(kind: LiveInstance['job']['kind']): 'running' | 'stopped' | 'sleeping' | 'destroyed' {
  if (kind === 'stop') return 'stopped';
  if (kind === 'sleep') return 'sleeping';
  if (kind === 'destroy') return 'destroyed';
  return 'running';
}

export const instanceDecider: Decider<InstanceState, InstanceCommand, InstanceEvent> = { decide, evolve: evolveInstance, initialState: initialInstanceState };
