import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { evolveInstance, initialInstanceState, type ActionReason, type InstanceAction, type InstanceEvent, type InstanceSettings, type InstanceState, type LiveInstance, type StepFacts } from './instance.ts';
import { refuseAction, type ActionView } from './instanceActions.ts';

/**
 * Commands on one instance. `RequestInstance` and `RequestAction` come from people (through the
 * control-plane) or from the executor's idle sweep; the step commands come from the executor
 * running the current job.
 */
export type InstanceCommand =
  | { type: 'RequestInstance'; settings: InstanceSettings; jobId: string }
  /** `headCommit`: the branch head a push announced, when the host said it. */
  | { type: 'RequestAction'; action: InstanceAction | 'sleep'; jobId: string; reason: ActionReason; headCommit?: string }
  | { type: 'StartStep'; jobId: string; step: string }
  | { type: 'CompleteStep'; jobId: string; step: string; durationMs: number; facts: StepFacts }
  | { type: 'FailStep'; jobId: string; step: string; durationMs: number; error: string; logTail: string[] }
  | { type: 'ReportProcessExit'; exitCode: number | null; logTail: string[] }
  | { type: 'PurgeInstance' };

/** The slug is held by another instance: the caller tries the next slug. */
export class InstanceSlugTakenError extends DomainError {
  constructor() {
    super('the slug is taken');
  }
}

/** The job the executor works on is no longer the instance's current job (a destroy replaced it): drop it. */
export class JobSupersededError extends DomainError {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer the instance's current job`);
  }
}

/** The folded state as the action rules see it. */
export const actionView = (state: LiveInstance): ActionView => ({
  slug: state.slug,
  status: state.status,
  stage: state.stage,
  jobActive: !state.job.ended,
  jobKind: state.job.kind,
  provisioned: state.provisioned,
});

/**
 * A push that finds a job running is remembered rather than dropped: one rebuild runs when the job
 * ends, and later pushes coalesce into it. A destroy in progress makes the push moot.
 */
function deferPush(instance: LiveInstance, command: Extract<InstanceCommand, { type: 'RequestAction' }>): InstanceEvent[] | null {
  if (command.reason !== 'push' || command.action !== 'rebuild' || instance.job.ended || instance.job.kind === 'destroy' || instance.status === 'destroyed') return null;
  const jobId = instance.pendingRebuild?.jobId ?? command.jobId;
  return [{ type: 'InstanceRebuildDeferred', data: { slug: instance.slug, jobId, ...(command.headCommit ? { headCommit: command.headCommit } : {}) } }];
}

/** When a job ends (either way), the rebuild a push deferred is requested in the same append. */
function pendingRebuild(instance: LiveInstance): InstanceEvent[] {
  if (!instance.pendingRebuild || instance.job.kind === 'destroy') return [];
  return [{ type: 'InstanceActionRequested', data: { slug: instance.slug, action: 'rebuild', jobId: instance.pendingRebuild.jobId, reason: 'push' } }];
}

function live(state: InstanceState): LiveInstance {
  if (state.status === 'none' || (state.status === 'destroyed' && state.purged)) throw new DomainError('no such instance', 'not_found');
  return state;
}

/** The executor's step reports only count for the current job, and only for its next step. */
function currentJob(state: LiveInstance, jobId: string) {
  if (state.job.id !== jobId || state.job.ended) throw new JobSupersededError(jobId);
  return state.job;
}

function decide(command: InstanceCommand, state: InstanceState): InstanceEvent[] {
  if (command.type === 'RequestInstance') {
    if (state.status !== 'none') throw new InstanceSlugTakenError();
    return [{ type: 'InstanceRequested', data: { ...command.settings, jobId: command.jobId } }];
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
      return [{ type: 'InstanceActionRequested', data: { slug, action: command.action, jobId: command.jobId, reason: command.reason, ...head } }];
    }
    case 'StartStep': {
      const job = currentJob(instance, command.jobId);
      const next = job.steps.find((step) => !job.completed.includes(step));
      if (next !== command.step) throw new DomainError(`step ${command.step} is not the next step of job ${job.id} (${next ?? 'none'} is)`);
      return [{ type: 'InstanceStepStarted', data: { slug, jobId: job.id, step: command.step, attempt: (job.started[command.step] ?? 0) + 1 } }];
    }
    case 'CompleteStep': {
      const job = currentJob(instance, command.jobId);
      if (job.completed.includes(command.step)) return [];
      if (job.started[command.step] === undefined) throw new DomainError(`step ${command.step} of job ${job.id} never started`);
      const events: InstanceEvent[] = [{ type: 'InstanceStepCompleted', data: { slug, jobId: job.id, step: command.step, durationMs: command.durationMs, facts: command.facts } }];
      if (job.steps.every((step) => step === command.step || job.completed.includes(step))) {
        events.push({ type: 'InstanceJobSucceeded', data: { slug, jobId: job.id, kind: job.kind, status: outcome(job.kind) } }, ...pendingRebuild(instance));
      }
      return events;
    }
    case 'FailStep': {
      const job = currentJob(instance, command.jobId);
      const { jobId: _jobId, type: _type, ...failure } = command;
      return [{ type: 'InstanceStepFailed', data: { slug, jobId: job.id, ...failure } }, ...pendingRebuild(instance)];
    }
    case 'ReportProcessExit':
      // Only a running instance with no job can die unexpectedly: during a job the job itself reports.
      if (instance.status !== 'running' || !instance.job.ended) return [];
      return [{ type: 'InstanceProcessExited', data: { slug, exitCode: command.exitCode, logTail: command.logTail } }];
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
