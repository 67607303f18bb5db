import { evolveJob, newJob, type JobState } from '#shared/workflow/jobState.ts';
import { planStep, type PlannedStep } from '#shared/workflow/plan.ts';
import {
  asWorkflowEvent,
  type JobCancelledData,
  type JobFailedData,
  type StepCompletedData,
  type StepFailedData,
  type StepInterruptedData,
  type StepStartedData,
} from '#shared/workflow/workflowEvents.ts';

/**
 * The instance context's events, state and evolve. The control-plane appends requests; the
 * executor appends the steps of each job. A job is the workflow kernel's (services/shared/workflow):
 * its plan travels in the event that requests it, and its state is its events in this stream.
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
  | { kind: 'upload'; uploadId: string; dumpFormat: 'custom' | 'plain'; hasFilestore: boolean }
  /** A migration run's result: a copy of its working database and filestore (the run's `instance` step). */
  | { kind: 'migration'; migration: string; run: number; database: string; filestoreDir: string | null }
  /**
   * A migration run's `backup` or `dump` artifact (a `pg_dump -Fc` in blob storage), with the same
   * run's `filestore` archive when it has one. The artifacts stay the migration's: the instance
   * restores copies of them and never deletes them.
   */
  | { kind: 'artifact'; artifactId: number; migration: string; run: number; artifactKind: 'backup' | 'dump'; blobKey: string; filestoreKey: string | null };

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
  /** The ERP installs its demo data (absent: no); only a development instance may ask (`demoDataRefusal`). */
  demoData?: boolean;
}

/** Demo data is for trying things out: never in a staging or production database. Null when `settings` may have it. */
export function demoDataRefusal(settings: Pick<InstanceSettings, 'stage' | 'demoData'>): string | null {
  return settings.demoData === true && settings.stage !== 'development' ? `demo data is for development instances only, not ${settings.stage}` : null;
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
  /** With workers on, the gevent process's port (`/websocket`), kept like `port`. */
  geventPort?: number;
  /** Where that gevent process answers while the ERP runs (the ERP router sends `/websocket` there). */
  geventUrl?: string;
  runtime?: string;
  standin?: boolean;
  /** The ERP's addons path, in order, computed by the build step after the checkout (absolute host folders). */
  addonsPath?: string[];
  /** Which neutralization a copy that is not production got, and what it did (the ERP's `neutralize`, or Forja's SQL and why). */
  neutralization?: string;
}

export type InstanceEvent =
  /** `plan`: the job's steps, decided when it was requested (absent in the first events: `legacyPlan`). */
  | { type: 'InstanceRequested'; data: InstanceSettings & { jobId: string; plan?: readonly PlannedStep[] } }
  | { type: 'InstanceActionRequested'; data: { slug: string; action: Exclude<JobKind, 'provision'>; jobId: string; reason: ActionReason; headCommit?: string; plan?: readonly PlannedStep[] } }
  /** A push arrived during a job: one rebuild (this job id) runs when the job ends; later pushes coalesce into it. */
  | { type: 'InstanceRebuildDeferred'; data: { slug: string; jobId: string; headCommit?: string } }
  | { type: 'InstanceStepStarted'; data: StepStartedData & { slug: string } }
  | { type: 'InstanceStepCompleted'; data: StepCompletedData & { slug: string; facts: StepFacts } }
  | { type: 'InstanceStepFailed'; data: StepFailedData & { slug: string } }
  | { type: 'InstanceStepInterrupted'; data: StepInterruptedData & { slug: string } }
  | { type: 'InstanceJobSucceeded'; data: { slug: string; jobId: string; kind: JobKind; status: 'running' | 'stopped' | 'sleeping' | 'destroyed' } }
  | { type: 'InstanceJobFailed'; data: JobFailedData & { slug: string } }
  /** A destroy cancels the job it finds running: the relay tells the executor, which kills the step. */
  | { type: 'InstanceJobCancelled'; data: JobCancelledData & { slug: string } }
  | { type: 'InstanceProcessExited'; data: { slug: string; exitCode: number | null; logTail: string[] } }
  | { type: 'InstancePurged'; data: { slug: string } }
  /** Someone used the running ERP (through the ERP router): activity the idle sweep counts, recorded at most every few minutes. */
  | { type: 'InstanceVisited'; data: { slug: string } }
  /** A developer opened a web shell on it (`user`: their e-mail); what they typed is never recorded. */
  | { type: 'InstanceShellOpened'; data: { slug: string; sessionId: string; user: string; runtime: ShellRuntime } }
  /** That shell ended: the user left (or typed exit), it sat idle too long, it failed, or web stopped. */
  | { type: 'InstanceShellClosed'; data: { slug: string; sessionId: string; durationMs: number; reason: ShellCloseReason } };

/** Where a web shell runs: beside the ERP process, or inside its container. */
export type ShellRuntime = 'process' | 'docker';
export type ShellCloseReason = 'user' | 'idle' | 'error' | 'server';

/** The workflow events' prefix in the instance stream (`InstanceStepStarted`, …). */
export const INSTANCE_WORKFLOW_PREFIX = 'Instance';

/** An instance job: the workflow's job state, of one of the instance's kinds. */
export type Job = JobState & { kind: JobKind };

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
  /** Web shells opened and not closed yet (absent: none), so a close is recorded once. */
  openShells?: readonly string[];
};

export type InstanceState = { status: 'none' } | LiveInstance;

export const initialInstanceState = (): InstanceState => ({ status: 'none' });

export const instanceStream = (slug: string): string => `instance-${slug}`;

/**
 * The plan of a new job, by today's rules: the decider puts it in the event that requests the
 * job. A rebuild of an instance that never got a database provisions it.
 */
export function instancePlan(kind: JobKind, provisioned: boolean): PlannedStep[] {
  switch (kind) {
    case 'provision':
      return ['resolve_source', 'fetch_code', 'database', 'build', 'install_modules', 'start', 'health_check'].map((type) => planStep(type));
    case 'rebuild':
      return provisioned ? ['resolve_source', 'fetch_code', 'build', 'stop', 'update_modules', 'start', 'health_check'].map((type) => planStep(type)) : instancePlan('provision', false);
    case 'start':
      return [planStep('start'), planStep('health_check')];
    case 'restart':
      return [planStep('stop'), planStep('start'), planStep('health_check')];
    case 'stop':
    case 'sleep':
      return [planStep('stop')];
    case 'destroy':
      return [planStep('stop'), planStep('drop_database'), planStep('remove_files')];
    default: {
      const unknown: never = kind;
      return unknown;
    }
  }
}

/** The names of a new job's steps, in order. */
export const jobSteps = (kind: JobKind, provisioned: boolean): string[] => instancePlan(kind, provisioned).map((step) => step.id);

/**
 * The plans the first events implied without carrying them, frozen: whatever `instancePlan`
 * becomes, replaying those events gives the plan their jobs ran.
 */
const LEGACY_PLANS: Record<JobKind | 'rebuild-provisioned', readonly string[]> = {
  provision: ['resolve_source', 'fetch_code', 'database', 'build', 'install_modules', 'start', 'health_check'],
  rebuild: ['resolve_source', 'fetch_code', 'database', 'build', 'install_modules', 'start', 'health_check'],
  'rebuild-provisioned': ['resolve_source', 'fetch_code', 'build', 'stop', 'update_modules', 'start', 'health_check'],
  start: ['start', 'health_check'],
  restart: ['stop', 'start', 'health_check'],
  stop: ['stop'],
  sleep: ['stop'],
  destroy: ['stop', 'drop_database', 'remove_files'],
};

export function legacyPlan(kind: JobKind, provisioned: boolean): PlannedStep[] {
  return LEGACY_PLANS[kind === 'rebuild' && provisioned ? 'rebuild-provisioned' : kind].map((type) => planStep(type));
}

/** Queued until a step starts; a provisioning or rebuild shows as `provisioning` from its first step (other jobs keep the status they act on). */
export function statusOnStepStarted(status: InstanceStatus, kind: JobKind | string): InstanceStatus {
  return status === 'queued' || kind === 'provision' || kind === 'rebuild' ? 'provisioning' : status;
}

function jobOf(jobId: string, kind: JobKind, plan: readonly PlannedStep[] | undefined, provisioned: boolean): Job {
  return { ...newJob({ jobId, kind, plan: plan ?? legacyPlan(kind, provisioned) }), kind };
}

export function evolveInstance(state: InstanceState, event: InstanceEvent): InstanceState {
  if (event.type === 'InstanceRequested') {
    const { jobId, plan, ...settings } = event.data;
    return { ...settings, status: 'queued', job: jobOf(jobId, 'provision', plan, false), provisioned: false, facts: {}, lastError: null, purged: false, pendingRebuild: null };
  }
  if (state.status === 'none') return state;
  const workflow = asWorkflowEvent(INSTANCE_WORKFLOW_PREFIX, event);
  if (workflow) {
    if (workflow.data.jobId !== state.job.jobId) return state;
    return evolveJobEffects({ ...state, job: { ...evolveJob(state.job, workflow), kind: state.job.kind } }, event);
  }
  switch (event.type) {
    case 'InstanceActionRequested': {
      const rebuilds = event.data.action === 'rebuild';
      return {
        ...state,
        status: rebuilds ? 'queued' : state.status,
        job: jobOf(event.data.jobId, event.data.action, event.data.plan, state.provisioned),
        // Any new job settles a pending rebuild: it is this job, or a destroy that makes it moot.
        pendingRebuild: null,
        facts: withHead(state.facts, event.data.headCommit),
      };
    }
    case 'InstanceRebuildDeferred':
      return { ...state, pendingRebuild: { jobId: event.data.jobId }, facts: withHead(state.facts, event.data.headCommit) };
    case 'InstanceProcessExited':
      return { ...state, status: 'failed', lastError: `the ERP process exited${event.data.exitCode === null ? '' : ` with code ${event.data.exitCode}`}` };
    case 'InstancePurged':
      return { ...state, purged: true };
    case 'InstanceVisited':
      return state;
    case 'InstanceShellOpened':
      return { ...state, openShells: [...(state.openShells ?? []), event.data.sessionId] };
    case 'InstanceShellClosed':
      return { ...state, openShells: (state.openShells ?? []).filter((id) => id !== event.data.sessionId) };
    // The workflow's events were folded above.
    case 'InstanceStepStarted':
    case 'InstanceStepCompleted':
    case 'InstanceStepFailed':
    case 'InstanceStepInterrupted':
    case 'InstanceJobSucceeded':
    case 'InstanceJobFailed':
    case 'InstanceJobCancelled':
      return state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** What the current job's workflow events change on the instance itself. */
function evolveJobEffects(state: LiveInstance, event: InstanceEvent): LiveInstance {
  switch (event.type) {
    case 'InstanceStepStarted':
      return { ...state, status: statusOnStepStarted(state.status, state.job.kind) };
    case 'InstanceStepCompleted':
      return { ...state, provisioned: state.provisioned || event.data.step === 'database', facts: { ...state.facts, ...event.data.facts } };
    case 'InstanceStepFailed':
      // The first events had no InstanceJobFailed: a failed step failed the instance.
      return event.data.retryable === undefined ? { ...state, status: 'failed', lastError: `${event.data.step}: ${event.data.error}` } : state;
    case 'InstanceJobFailed':
      return { ...state, status: 'failed', lastError: `${event.data.step}: ${event.data.error}` };
    case 'InstanceJobSucceeded':
      return {
        ...state,
        status: event.data.status,
        lastError: null,
        provisioned: event.data.status === 'destroyed' ? false : state.provisioned,
        facts: event.data.status === 'running' ? state.facts : withoutUrl(state.facts),
      };
    // A cancel changes the instance through the destroy that follows it; an interrupted step changes only its job.
    case 'InstanceStepInterrupted':
    case 'InstanceJobCancelled':
    case 'InstanceRequested':
    case 'InstanceActionRequested':
    case 'InstanceRebuildDeferred':
    case 'InstanceProcessExited':
    case 'InstancePurged':
    case 'InstanceVisited':
    case 'InstanceShellOpened':
    case 'InstanceShellClosed':
      return state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

function withoutUrl({ url: _url, geventUrl: _geventUrl, ...facts }: StepFacts): StepFacts {
  return facts;
}

const withHead = (facts: StepFacts, headCommit: string | undefined): StepFacts => (headCommit ? { ...facts, branchHead: headCommit } : facts);
