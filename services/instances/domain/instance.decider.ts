import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { evolveInstance, initialInstanceState, type InstanceAction, type InstanceEvent, type InstanceSettings, type InstanceState, type LiveInstance, type StepFacts } from './instance.ts';

/**
 * Commands on one instance. `RequestInstance` and `RequestAction` come from people (through the
 * control-plane) or from the executor's idle sweep; the step commands come from the executor
 * running the current job.
 */
export type InstanceCommand =
  | { type: 'RequestInstance'; settings: InstanceSettings; jobId: string }
  | { type: 'RequestAction'; action: InstanceAction | 'sleep'; jobId: string; reason: 'user' | 'push' | 'idle' }
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

/** From which states each action makes sense, and why not otherwise. */
const ALLOWED: Record<InstanceAction | 'sleep', readonly LiveInstance['status'][]> = {
  start: ['stopped', 'sleeping'],
  stop: ['running'],
  restart: ['running', 'failed'],
  rebuild: ['running', 'stopped', 'sleeping', 'failed'],
  destroy: ['queued', 'provisioning', 'running', 'stopped', 'failed', 'sleeping'],
  sleep: ['running'],
};

function refuseAction(action: InstanceAction | 'sleep', state: LiveInstance): string | null {
  if (state.status === 'destroyed') return `${state.slug} is destroyed; create a new instance instead`;
  const busy = !state.job.ended;
  if (busy && action !== 'destroy') return `${state.slug} is busy with a ${state.job.kind} job; wait for it to end (or destroy the instance)`;
  if (!ALLOWED[action].includes(state.status)) return `cannot ${action} ${state.slug} while it is ${state.status}`;
  if ((action === 'start' || action === 'restart') && !state.provisioned) return `${state.slug} was never provisioned; rebuild it instead`;
  if (action === 'sleep' && state.stage !== 'development') return `only development instances sleep`;
  return null;
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
      const refusal = refuseAction(command.action, instance);
      if (refusal) throw new DomainError(refusal, 'conflict');
      return [{ type: 'InstanceActionRequested', data: { slug, action: command.action, jobId: command.jobId, reason: command.reason } }];
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
        events.push({ type: 'InstanceJobSucceeded', data: { slug, jobId: job.id, kind: job.kind, status: outcome(job.kind) } });
      }
      return events;
    }
    case 'FailStep': {
      const job = currentJob(instance, command.jobId);
      const { jobId: _jobId, type: _type, ...failure } = command;
      return [{ type: 'InstanceStepFailed', data: { slug, jobId: job.id, ...failure } }];
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
