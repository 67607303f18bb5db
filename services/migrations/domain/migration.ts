import { evolveJob, isJobEnded, isStepDone, newJob, type JobState, type StepState } from '#shared/workflow/jobState.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import type { HopCodes } from './hopCode.ts';
import type { AdoptedReuse, PlanDiffRow } from './resync.ts';
import {
  asWorkflowEvent,
  type GateReachedData,
  type GateResolvedData,
  type JobCancelledData,
  type JobEndedData,
  type JobFailedData,
  type StepCompletedData,
  type StepFailedData,
  type StepInterruptedData,
  type StepStartedData,
} from '#shared/workflow/workflowEvents.ts';

/**
 * The migration context's events, state and evolve. A migration is created as a draft; each run
 * is a workflow job (services/shared/workflow) whose plan is the migration's recipe, copied into
 * the run's request event. A run that resumes a failed one reuses the steps that one completed.
 */

export const FLAVORS = ['community', 'enterprise'] as const;
export const ENGINES = ['openupgrade', 'upgrade-service'] as const;
export const PURPOSES = ['test', 'production'] as const;
/** Every status, in the order lists and filters offer them. */
export const MIGRATION_STATUSES = ['draft', 'queued', 'running', 'waiting', 'paused', 'errored', 'migrated'] as const;

export type Flavor = (typeof FLAVORS)[number];
export type Engine = (typeof ENGINES)[number];
export type Purpose = (typeof PURPOSES)[number];
export type MigrationStatus = (typeof MIGRATION_STATUSES)[number];

/** Where the customer's database comes from: a URL the executor downloads, an upload, or nothing yet (a draft registered first). */
export type MigrationInput =
  | { mode: 'pull'; pullUrl: string }
  | { mode: 'upload'; uploadId: string; dumpName: string; filestoreName: string | null; bytes: number; sha256: string | null }
  | { mode: 'none' };

/** The recipe as it was when the migration took it: runs follow this copy, not the current file. */
export interface RecipeSnapshot {
  /** `<flavor>.<stem>`, or several joined by `+` for a multi-hop route. */
  key: string;
  sha256: string;
  text: string;
}

export interface MigrationSettings {
  slug: string;
  name: string;
  origin: string;
  destination: string;
  flavor: Flavor;
  engine: Engine;
  purpose: Purpose;
  /** The vendor's subscription code (upgrade-service engine). */
  contract: string | null;
  notifyTo: string[];
  input: MigrationInput;
  recipe: RecipeSnapshot;
  workingDatabase: string;
  /** The working database's checkpoint; absent in migrations created before issue 24 (`checkpointDatabaseOf`). */
  checkpointDatabase?: string;
  /** The project whose repository holds the customer's code (hopCode.ts); absent or null: none. */
  project?: string | null;
  /** Per destination version, the branch (and commit) of that code; absent: none. */
  code?: HopCodes;
}

/** The fields an edit may change; which of them it may change depends on the state (`editableFields`). */
export type MigrationChanges = Partial<Pick<MigrationSettings, 'origin' | 'destination' | 'flavor' | 'engine' | 'purpose' | 'contract' | 'notifyTo' | 'recipe' | 'project' | 'code'>>;

/** Why a run was asked for: a new run, a resume of a failed one, or a run past a failed pre-flight. */
export type RunKind = 'run' | 'resume' | 'run-anyway';

export interface RunRequest {
  slug: string;
  number: number;
  jobId: string;
  kind: RunKind;
  plan: readonly PlannedStep[];
  /** The run whose completed steps this one reuses (no re-download, no re-restore), or null. */
  resumedFrom: number | null;
  /** Steps done by an earlier run, with their facts: recorded as `reused`, not run again. */
  reused: Readonly<Record<string, object>>;
  /** Steps not run at all (the pre-flight of a run-anyway). */
  skipped: readonly string[];
  skipPreflight: boolean;
  /** Why the operator overrode a failed pre-flight (run-anyway). */
  reason?: string;
}

type WithRun<T> = T & { slug: string; number: number };

/**
 * A PDF report of a run made on demand (not by a step of the run), registered as that run's
 * artifact. Its id comes from `reportArtifactId` (migrationReports.ts).
 */
export interface ReportArtifact {
  id: number;
  kind: 'report';
  name: string;
  /** Where it is in blob storage: `migrations/<slug>/runs/<n>/<name>`. */
  key: string;
  bytes: number;
  sha256: string;
}

export type MigrationEvent =
  | { type: 'MigrationCreated'; data: MigrationSettings }
  | { type: 'MigrationEdited'; data: { slug: string; changes: MigrationChanges } }
  | { type: 'MigrationRunRequested'; data: RunRequest }
  | { type: 'MigrationStepStarted'; data: WithRun<StepStartedData> }
  | { type: 'MigrationStepCompleted'; data: WithRun<StepCompletedData> }
  | { type: 'MigrationStepFailed'; data: WithRun<StepFailedData> }
  | { type: 'MigrationStepInterrupted'; data: WithRun<StepInterruptedData> }
  | { type: 'MigrationGateReached'; data: WithRun<GateReachedData> }
  | { type: 'MigrationGateResolved'; data: WithRun<GateResolvedData> }
  | { type: 'MigrationJobPaused'; data: WithRun<JobEndedData> }
  | { type: 'MigrationJobResumed'; data: WithRun<JobEndedData> }
  | { type: 'MigrationJobSucceeded'; data: WithRun<JobEndedData> }
  | { type: 'MigrationJobFailed'; data: WithRun<JobFailedData> }
  | { type: 'MigrationJobCancelled'; data: WithRun<JobCancelledData> }
  /** Back to draft: runs dropped, working databases, instances and files removed by the executor. */
  | { type: 'MigrationStopped'; data: { slug: string; runs: number[] } }
  /** Run `number`'s `instance` step is about to ask for this instance: what a stop or delete destroys. */
  | { type: 'MigrationWorkingInstanceRequested'; data: WithRun<{ jobId: string; instance: string }> }
  /** `by`: the user who asked for the report. */
  | { type: 'MigrationReportGenerated'; data: { slug: string; number: number; artifact: ReportArtifact; by: string } }
  /** The recipe resync decided (`adopt` carries the new snapshot, its plan and what a resume of the failed run keeps). */
  | { type: 'MigrationResynced'; data: ResyncData }
  | { type: 'MigrationDeleted'; data: { slug: string } };

/** A resync's decision: the snapshot it compared, the current recipe, and the steps that differ. */
export interface ResyncData {
  slug: string;
  decision: 'adopt' | 'keep';
  from: { key: string; sha256: string };
  to: { key: string; sha256: string };
  /** The steps that differ (added, removed, changed with their fields); unchanged ones left out. */
  changes: PlanDiffRow[];
  /** adopt: the current recipe, snapshotted. */
  recipe?: RecipeSnapshot;
  /** adopt: the plan it makes, and what the next resume of the failed run reuses of it. */
  plan?: readonly PlannedStep[];
  reuse?: AdoptedReuse;
}

/** After an adopt, until the next run: the plan a resume follows and the steps of the failed run it keeps. */
export interface AdoptedPlan {
  plan: readonly PlannedStep[];
  reuse: readonly string[];
}

/** The workflow events' prefix in the migration stream (`MigrationStepStarted`, …). */
export const MIGRATION_WORKFLOW_PREFIX = 'Migration';

export interface Run {
  number: number;
  kind: RunKind;
  job: JobState;
  resumedFrom: number | null;
  skipPreflight: boolean;
  /** Reports generated on demand for this run, oldest first; absent when there are none. */
  reports?: readonly ReportArtifact[];
  /** The sha256 of the recipe snapshot the migration followed when the run was requested (a resync cannot happen during a run). */
  recipeSha256?: string;
}

export type LiveMigration = MigrationSettings & {
  status: MigrationStatus;
  runs: readonly Run[];
  /** Run numbers given so far: numbers are never reused, not even after a stop. */
  lastNumber: number;
  deleted: boolean;
  /** Set by a resync that adopted the current recipe after a failed run; the next run takes it. */
  adopted?: AdoptedPlan | null;
  /** The working instances its runs asked for, kept across stops; absent when none did. */
  workingInstances?: readonly { run: number; instance: string }[];
};

export type MigrationState = { status: 'none' } | LiveMigration;

export const initialMigrationState = (): MigrationState => ({ status: 'none' });

export const migrationStream = (slug: string): string => `migration-${slug}`;

/** A pre-flight step (checks that decide whether the run may start the real work). */
export const isPreflight = (step: PlannedStep): boolean => step.params['phase'] === 'preflight';

/** The migration's status: its last run's, or draft with none. */
export function statusOf(runs: readonly Run[]): MigrationStatus {
  const last = runs.at(-1);
  if (!last) return 'draft';
  switch (last.job.status) {
    case 'queued':
      return 'queued';
    case 'running':
      return 'running';
    case 'waiting':
      return 'waiting';
    case 'paused':
      return 'paused';
    case 'succeeded':
      return 'migrated';
    case 'failed':
    case 'cancelled':
      return 'errored';
    default: {
      const unknown: never = last.job.status;
      return unknown;
    }
  }
}

/** The step that failed, or else the last one completed: where a resume starts from. */
export function checkpointOf(job: JobState): string | null {
  const failed = job.plan.find((step) => job.steps[step.id]?.status === 'failed');
  if (failed) return failed.id;
  const done = job.plan.filter((step) => isStepDone(job.steps[step.id]));
  return done.at(-1)?.id ?? null;
}

/** True when the run ended failed in a pre-flight step (run-anyway may override it). */
export function failedInPreflight(run: Run): boolean {
  if (run.job.status !== 'failed') return false;
  const failed = run.job.plan.find((step) => run.job.steps[step.id]?.status === 'failed');
  return failed !== undefined && isPreflight(failed);
}

/** A run's job as its request leaves it: reused and skipped steps are done before anything runs. */
function runJob(request: RunRequest): JobState {
  const job = newJob({ jobId: request.jobId, kind: request.kind, plan: request.plan });
  const preset: Record<string, StepState> = {};
  for (const [id, facts] of Object.entries(request.reused)) if (job.steps[id]) preset[id] = { status: 'reused', attempts: 0, facts };
  for (const id of request.skipped) if (job.steps[id]) preset[id] = { status: 'skipped', attempts: 0 };
  return { ...job, steps: { ...job.steps, ...preset } };
}

export function evolveMigration(state: MigrationState, event: MigrationEvent): MigrationState {
  if (event.type === 'MigrationCreated') return { ...event.data, status: 'draft', runs: [], lastNumber: 0, deleted: false };
  if (state.status === 'none') return state;
  const workflow = asWorkflowEvent(MIGRATION_WORKFLOW_PREFIX, event);
  if (workflow) {
    const runs = state.runs.map((run) => (run.job.jobId === workflow.data.jobId ? { ...run, job: evolveJob(run.job, workflow) } : run));
    return { ...state, runs, status: statusOf(runs) };
  }
  switch (event.type) {
    case 'MigrationEdited':
      return { ...state, ...event.data.changes };
    case 'MigrationRunRequested': {
      const run: Run = { number: event.data.number, kind: event.data.kind, job: runJob(event.data), resumedFrom: event.data.resumedFrom, skipPreflight: event.data.skipPreflight, recipeSha256: state.recipe.sha256 };
      const runs = [...state.runs, run];
      return { ...state, runs, lastNumber: Math.max(state.lastNumber, event.data.number), status: statusOf(runs), adopted: null };
    }
    case 'MigrationStopped':
      return { ...state, runs: [], status: 'draft', adopted: null };
    case 'MigrationResynced': {
      const { decision, recipe, plan, reuse } = event.data;
      if (decision === 'keep' || !recipe) return state;
      const failed = state.runs.at(-1)?.job.status === 'failed';
      return { ...state, recipe, adopted: failed && plan ? { plan, reuse: reuse?.reuse ?? [] } : null };
    }
    case 'MigrationReportGenerated': {
      const { number, artifact } = event.data;
      return { ...state, runs: state.runs.map((run) => (run.number === number ? { ...run, reports: [...(run.reports ?? []), artifact] } : run)) };
    }
    case 'MigrationDeleted':
      return { ...state, deleted: true };
    case 'MigrationWorkingInstanceRequested': {
      const { number: run, instance } = event.data;
      return { ...state, workingInstances: [...(state.workingInstances ?? []), { run, instance }] };
    }
    // The workflow's events were folded above.
    case 'MigrationStepStarted':
    case 'MigrationStepCompleted':
    case 'MigrationStepFailed':
    case 'MigrationStepInterrupted':
    case 'MigrationGateReached':
    case 'MigrationGateResolved':
    case 'MigrationJobPaused':
    case 'MigrationJobResumed':
    case 'MigrationJobSucceeded':
    case 'MigrationJobFailed':
    case 'MigrationJobCancelled':
      return state;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The run a live job belongs to: the last one, while it has not ended. */
export function liveRun(migration: LiveMigration): Run | null {
  const last = migration.runs.at(-1);
  return last && !isJobEnded(last.job) ? last : null;
}
