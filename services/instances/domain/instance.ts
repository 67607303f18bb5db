/**
 * The instance context's events, state and evolve. The control-plane appends requests; the
 * executor appends the steps of each job. A job's state is its events in this stream: after a
 * crash the executor replays them and runs the first step without `InstanceStepCompleted`.
 */

export const STAGES = ['development', 'staging', 'production'] as const;
export const ERP_VERSIONS = ['19.0', '18.0', '17.0', '16.0'] as const;
export const EDITIONS = ['community', 'enterprise'] as const;
export const ACTIONS = ['start', 'restart', 'stop', 'rebuild', 'destroy'] as const;

export type Stage = (typeof STAGES)[number];
export type ErpVersion = (typeof ERP_VERSIONS)[number];
export type Edition = (typeof EDITIONS)[number];
export type InstanceAction = (typeof ACTIONS)[number];
/** What a job does: the user's actions, the first provisioning, and putting an idle instance to sleep. */
export type JobKind = 'provision' | 'sleep' | InstanceAction;
/** Every status, in the order lists and filters offer them. */
export const STATUSES = ['queued', 'provisioning', 'running', 'failed', 'stopped', 'sleeping', 'destroyed'] as const;
export type InstanceStatus = (typeof STATUSES)[number];
/** Who asked for a job: a person, a git push, the idle sweep, or `npm start` bringing back what ran when it stopped. */
export type ActionReason = 'user' | 'push' | 'idle' | 'boot';

/** Where the new database comes from. */
export type InstanceSource =
  | { kind: 'empty' }
  | { kind: 'clone'; from: string }
  | { kind: 'upload'; uploadId: string; dumpFormat: 'custom' | 'plain'; hasFilestore: boolean };

export interface InstanceSettings {
  slug: string;
  name: string;
  project: string;
  stage: Stage;
  erpVersion: ErpVersion;
  edition: Edition;
  modules: string[];
  gitRepo: string | null;
  branch: string;
  source: InstanceSource;
}

/** Facts a completed step learned, kept on the instance (commit built, where the ERP answers, …). */
export interface StepFacts {
  /** The commit checked out: what the ERP runs. */
  commit?: string;
  /** The branch's head as last seen (resolved by git, or announced by a push). */
  branchHead?: string;
  url?: string;
  /** The ERP's port on 127.0.0.1: chosen at the first start, kept for every later one. */
  port?: number;
  runtime?: string;
  standin?: boolean;
}

export type InstanceEvent =
  | { type: 'InstanceRequested'; data: InstanceSettings & { jobId: string } }
  | { type: 'InstanceActionRequested'; data: { slug: string; action: Exclude<JobKind, 'provision'>; jobId: string; reason: ActionReason; headCommit?: string } }
  /** A push arrived during a job: one rebuild (this job id) runs when the job ends; later pushes coalesce into it. */
  | { type: 'InstanceRebuildDeferred'; data: { slug: string; jobId: string; headCommit?: string } }
  | { type: 'InstanceStepStarted'; data: { slug: string; jobId: string; step: string; attempt: number } }
  | { type: 'InstanceStepCompleted'; data: { slug: string; jobId: string; step: string; durationMs: number; facts: StepFacts } }
  | { type: 'InstanceStepFailed'; data: { slug: string; jobId: string; step: string; durationMs: number; error: string; logTail: string[] } }
  | { type: 'InstanceJobSucceeded'; data: { slug: string; jobId: string; kind: JobKind; status: 'running' | 'stopped' | 'sleeping' | 'destroyed' } }
  | { type: 'InstanceProcessExited'; data: { slug: string; exitCode: number | null; logTail: string[] } }
  | { type: 'InstancePurged'; data: { slug: string } };

export interface Job {
  id: string;
  kind: JobKind;
  steps: readonly string[];
  started: Record<string, number>;
  completed: readonly string[];
  /** Set once the job succeeded or failed; a job without it is queued or running. */
  ended: boolean;
}

export type LiveInstance = InstanceSettings & {
  status: InstanceStatus;
  job: Job;
  /** True once a database exists for it: from then on `start` and `restart` have something to run. */
  provisioned: boolean;
  facts: StepFacts;
  lastError: string | null;
  purged: boolean;
  /** The rebuild a push asked for while a job ran; requested when that job ends. */
  pendingRebuild: { jobId: string } | null;
};

export type InstanceState = { status: 'none' } | LiveInstance;

export const initialInstanceState = (): InstanceState => ({ status: 'none' });

export const instanceStream = (slug: string): string => `instance-${slug}`;

/** The steps of a job, in order. A rebuild of an instance that never got a database provisions it. */
export function jobSteps(kind: JobKind, provisioned: boolean): readonly string[] {
  switch (kind) {
    case 'provision':
      return ['resolve_source', 'fetch_code', 'database', 'build', 'install_modules', 'start', 'health_check'];
    case 'rebuild':
      return provisioned ? ['resolve_source', 'fetch_code', 'build', 'stop', 'update_modules', 'start', 'health_check'] : jobSteps('provision', false);
    case 'start':
      return ['start', 'health_check'];
    case 'restart':
      return ['stop', 'start', 'health_check'];
    case 'stop':
    case 'sleep':
      return ['stop'];
    case 'destroy':
      return ['stop', 'drop_database', 'remove_files'];
    default: {
      const unknown: never = kind;
      return unknown;
    }
  }
}

/** While a job is queued the instance waits; a provisioning or rebuild shows as `provisioning` once it starts. */
function newJob(id: string, kind: JobKind, provisioned: boolean): Job {
  return { id, kind, steps: jobSteps(kind, provisioned), started: {}, completed: [], ended: false };
}

export function evolveInstance(state: InstanceState, event: InstanceEvent): InstanceState {
  if (event.type === 'InstanceRequested') {
    const { jobId, ...settings } = event.data;
    return { ...settings, status: 'queued', job: newJob(jobId, 'provision', false), provisioned: false, facts: {}, lastError: null, purged: false, pendingRebuild: null };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'InstanceActionRequested': {
      const rebuilds = event.data.action === 'rebuild';
      return {
        ...state,
        status: rebuilds ? 'queued' : state.status,
        job: newJob(event.data.jobId, event.data.action, state.provisioned),
        // Any new job settles a pending rebuild: it is this job, or a destroy that makes it moot.
        pendingRebuild: null,
        facts: withHead(state.facts, event.data.headCommit),
      };
    }
    case 'InstanceRebuildDeferred':
      return { ...state, pendingRebuild: { jobId: event.data.jobId }, facts: withHead(state.facts, event.data.headCommit) };
    case 'InstanceStepStarted': {
      if (event.data.jobId !== state.job.id) return state;
      const builds = state.job.kind === 'provision' || state.job.kind === 'rebuild';
      return { ...state, status: builds ? 'provisioning' : state.status, job: { ...state.job, started: { ...state.job.started, [event.data.step]: event.data.attempt } } };
    }
    case 'InstanceStepCompleted': {
      if (event.data.jobId !== state.job.id) return state;
      return {
        ...state,
        provisioned: state.provisioned || event.data.step === 'database',
        facts: { ...state.facts, ...event.data.facts },
        job: { ...state.job, completed: [...state.job.completed, event.data.step] },
      };
    }
    case 'InstanceStepFailed':
      if (event.data.jobId !== state.job.id) return state;
      return { ...state, status: 'failed', lastError: `${event.data.step}: ${event.data.error}`, job: { ...state.job, ended: true } };
    case 'InstanceJobSucceeded':
      if (event.data.jobId !== state.job.id) return state;
      return {
        ...state,
        status: event.data.status,
        lastError: null,
        provisioned: event.data.status === 'destroyed' ? false : state.provisioned,
        facts: event.data.status === 'running' ? state.facts : withoutUrl(state.facts),
        job: { ...state.job, ended: true },
      };
    case 'InstanceProcessExited':
      return { ...state, status: 'failed', lastError: `the ERP process exited${event.data.exitCode === null ? '' : ` with code ${event.data.exitCode}`}` };
    case 'InstancePurged':
      return { ...state, purged: true };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

function withoutUrl({ url: _url, ...facts }: StepFacts): StepFacts {
  return facts;
}

const withHead = (facts: StepFacts, headCommit: string | undefined): StepFacts => (headCommit ? { ...facts, branchHead: headCommit } : facts);
