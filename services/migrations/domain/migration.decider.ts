import { DomainError, type Decider } from '#shared/decider/decider.ts';
import { isJobEnded, isStepDone } from '#shared/workflow/jobState.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { decideWorkflow, JobSupersededError, type WorkflowCommand } from '#shared/workflow/workflowDecide.ts';
import { prefixed, type WorkflowEvent } from '#shared/workflow/workflowEvents.ts';
import {
  evolveMigration,
  initialMigrationState,
  isPreflight,
  liveRun,
  MIGRATION_WORKFLOW_PREFIX,
  type LiveMigration,
  type MigrationChanges,
  type MigrationEvent,
  type MigrationSettings,
  type MigrationState,
  type RecipeSnapshot,
  type Run,
  type RunRequest,
} from './migration.ts';
import { editableFields, migrationActionView, refuseMigrationAction, type MigrationAction } from './migrationActions.ts';
import { registerReport, type ReportFile } from './migrationReports.ts';
import type { AdoptedReuse, PlanDiffRow } from './resync.ts';
import { workingInstanceSlug } from '#shared/instanceDatabase/reservedNames.ts';
import { workingInstanceOfRun } from './workingNames.ts';

/**
 * Commands on one migration: the operator's (through the control-plane) and the executor's step
 * reports on the current run (the workflow kernel's commands).
 */
export type MigrationCommand =
  | { type: 'CreateMigration'; settings: MigrationSettings }
  | { type: 'EditMigration'; changes: MigrationChanges }
  /** `plan`: the recipe snapshot materialized now, used when the run starts from scratch. */
  | { type: 'RequestRun'; jobId: string; plan: readonly PlannedStep[] }
  | { type: 'RunAnyway'; jobId: string; reason: string }
  | { type: 'PauseRun' }
  | { type: 'ResumeRun' }
  | { type: 'ResolveRunGate'; number: number; decision: 'approved' | 'rejected'; by: string; note?: string }
  | { type: 'StopMigration' }
  | { type: 'DeleteMigration'; confirmName: string }
  /** A PDF report of run `number`, already stored, becomes one of its artifacts. */
  | { type: 'RegisterReport'; number: number; file: ReportFile; by: string }
  /** Resync: the current recipe's snapshot and plan, the step diff and what a resume would reuse, computed by the caller. */
  | { type: 'ResyncMigration'; decision: 'adopt' | 'keep'; recipe: RecipeSnapshot; plan: readonly PlannedStep[]; reuse: AdoptedReuse; changes: PlanDiffRow[] }
  /** The executor's `instance` step, before it asks for the run's working instance: the name is decided and recorded here. */
  | { type: 'RecordWorkingInstance'; jobId: string }
  | Exclude<WorkflowCommand, { type: 'PauseJob' | 'ResumeJob' | 'CancelJob' | 'ResolveGate' }>;

export class MigrationSlugTakenError extends DomainError {
  constructor() {
    super('the slug is taken');
  }
}

function live(state: MigrationState): LiveMigration {
  if (state.status === 'none' || state.deleted) throw new DomainError('no such migration', 'not_found');
  return state;
}

function refuse(action: MigrationAction, migration: LiveMigration): void {
  const refusal = refuseMigrationAction(action, migrationActionView(migration));
  if (refusal) throw new DomainError(refusal, 'conflict');
}

/** A workflow event in the migration stream: prefixed, with the migration and the run number. */
const asMigrationEvent = (migration: LiveMigration, run: Run, event: WorkflowEvent): MigrationEvent =>
  ({ type: prefixed(MIGRATION_WORKFLOW_PREFIX, event.type), data: { slug: migration.slug, number: run.number, ...event.data } }) as MigrationEvent;

function onRun(migration: LiveMigration, run: Run, command: WorkflowCommand): MigrationEvent[] {
  return decideWorkflow(run.job, command).map((event) => asMigrationEvent(migration, run, event));
}

/** The executor's reports count for the last run only, while it has not ended. */
function currentRun(migration: LiveMigration, jobId: string): Run {
  const last = migration.runs.at(-1);
  if (!last || last.job.jobId !== jobId || isJobEnded(last.job)) throw new JobSupersededError(jobId);
  return last;
}

/**
 * The plan a run after the failed `last` follows and what it keeps of it: the failed run's own plan
 * and everything it finished, or, after a resync adopted the current recipe, the adopted plan and
 * only the finished steps the adopt said stay valid.
 */
function resumeOf(migration: LiveMigration, last: Run): { plan: readonly PlannedStep[]; reused: Record<string, object>; skipped: string[] } {
  const { reused, skipped } = finishedSteps(last);
  const adopted = migration.adopted;
  if (!adopted) return { plan: last.job.plan, reused, skipped };
  const kept = new Set(adopted.reuse);
  return { plan: adopted.plan, reused: Object.fromEntries(Object.entries(reused).filter(([id]) => kept.has(id))), skipped: skipped.filter((id) => kept.has(id)) };
}

/** Resync refuses while a run is live: its plan cannot change under it. */
function resync(migration: LiveMigration, command: Extract<MigrationCommand, { type: 'ResyncMigration' }>): MigrationEvent[] {
  const live = migration.runs.at(-1);
  if (live && !isJobEnded(live.job)) {
    throw new DomainError(`run ${live.number} is ${live.job.status}: resync once it has ended (stop it, or let it fail or finish)`, 'conflict');
  }
  if (command.recipe.sha256 === migration.recipe.sha256) throw new DomainError(`the migration already follows the current recipe (${migration.recipe.key})`, 'conflict');
  const base = { slug: migration.slug, decision: command.decision, from: { key: migration.recipe.key, sha256: migration.recipe.sha256 }, to: { key: command.recipe.key, sha256: command.recipe.sha256 }, changes: command.changes };
  return [{ type: 'MigrationResynced', data: command.decision === 'keep' ? base : { ...base, recipe: command.recipe, plan: command.plan, reuse: command.reuse } }];
}

/** The steps a run finished: done with facts (reused by the next run) or skipped. */
function finishedSteps(run: Run): { reused: Record<string, object>; skipped: string[] } {
  const reused: Record<string, object> = {};
  const skipped: string[] = [];
  for (const step of run.job.plan) {
    const state = run.job.steps[step.id];
    if (state?.status === 'completed' || state?.status === 'reused') reused[step.id] = state.facts;
    else if (state?.status === 'skipped') skipped.push(step.id);
  }
  return { reused, skipped };
}

/**
 * A run after a failure resumes it: same plan, the steps it finished reused with their facts (no
 * re-download, no re-restore), from the failed step on. Otherwise the run starts from scratch.
 */
function nextRun(migration: LiveMigration, command: Extract<MigrationCommand, { type: 'RequestRun' }>): RunRequest {
  const last = migration.runs.at(-1);
  const number = migration.lastNumber + 1;
  const base = { slug: migration.slug, number, jobId: command.jobId, skipPreflight: false };
  if (last?.job.status === 'failed') {
    const { plan, reused, skipped } = resumeOf(migration, last);
    return { ...base, kind: 'resume', plan, resumedFrom: last.number, reused, skipped, skipPreflight: last.skipPreflight };
  }
  return { ...base, kind: 'run', plan: command.plan, resumedFrom: null, reused: {}, skipped: [] };
}

/** The events that end a live run before the migration is stopped or deleted. */
function cancelLiveRun(migration: LiveMigration, reason: string): MigrationEvent[] {
  const run = liveRun(migration);
  return run ? onRun(migration, run, { type: 'CancelJob', jobId: run.job.jobId, reason }) : [];
}

function decide(command: MigrationCommand, state: MigrationState): MigrationEvent[] {
  if (command.type === 'CreateMigration') {
    if (state.status !== 'none') throw new MigrationSlugTakenError();
    return [{ type: 'MigrationCreated', data: command.settings }];
  }
  const migration = live(state);
  const { slug } = migration;
  switch (command.type) {
    case 'EditMigration': {
      const allowed = editableFields(migration);
      const changes = Object.fromEntries(
        Object.entries(command.changes).filter(([field, value]) => allowed.includes(field as keyof MigrationChanges) && JSON.stringify(value) !== JSON.stringify(migration[field as keyof MigrationChanges])),
      ) as MigrationChanges;
      return Object.keys(changes).length === 0 ? [] : [{ type: 'MigrationEdited', data: { slug, changes } }];
    }
    case 'RequestRun':
      refuse('run', migration);
      return [{ type: 'MigrationRunRequested', data: nextRun(migration, command) }];
    case 'RunAnyway': {
      refuse('run-anyway', migration);
      if (command.reason.trim() === '') throw new DomainError('say why the failed pre-flight may be overridden', 'invalid');
      const last = migration.runs.at(-1)!;
      // What the failed run fetched and restored before its checks failed is reused, not redone.
      const { plan, reused, skipped } = resumeOf(migration, last);
      const preflight = plan.filter(isPreflight).map((step) => step.id);
      const request: RunRequest = {
        slug,
        number: migration.lastNumber + 1,
        jobId: command.jobId,
        kind: 'run-anyway',
        plan,
        resumedFrom: last.number,
        reused: Object.fromEntries(Object.entries(reused).filter(([id]) => !preflight.includes(id))),
        skipped: [...new Set([...skipped, ...preflight])],
        skipPreflight: true,
        reason: command.reason.trim(),
      };
      return [{ type: 'MigrationRunRequested', data: request }];
    }
    case 'PauseRun': {
      refuse('pause', migration);
      const run = liveRun(migration)!;
      return onRun(migration, run, { type: 'PauseJob', jobId: run.job.jobId });
    }
    case 'ResumeRun': {
      refuse('resume', migration);
      const run = migration.runs.at(-1)!;
      return onRun(migration, run, { type: 'ResumeJob', jobId: run.job.jobId });
    }
    case 'ResolveRunGate': {
      const run = migration.runs.find((candidate) => candidate.number === command.number);
      if (!run) throw new DomainError(`${slug} has no run ${command.number}`, 'not_found');
      if (run !== migration.runs.at(-1) || run.job.status !== 'waiting') throw new DomainError(`run ${command.number} of ${slug} is not waiting at a gate`, 'conflict');
      const gate = run.job.plan.find((step) => run.job.steps[step.id]?.status === 'waiting')!;
      return onRun(migration, run, { type: 'ResolveGate', jobId: run.job.jobId, step: gate.id, decision: command.decision, by: command.by, ...(command.note ? { note: command.note } : {}) });
    }
    case 'StopMigration':
      refuse('stop', migration);
      return [...cancelLiveRun(migration, 'stop'), { type: 'MigrationStopped', data: { slug, runs: migration.runs.map((run) => run.number) } }];
    case 'DeleteMigration':
      if (command.confirmName.trim() !== migration.name) throw new DomainError(`type the migration's name (${migration.name}) to delete it`, 'invalid');
      return [...cancelLiveRun(migration, 'delete'), { type: 'MigrationDeleted', data: { slug } }];
    case 'RegisterReport':
      return registerReport(migration, command.number, command.file, command.by);
    case 'ResyncMigration':
      return resync(migration, command);
    case 'RecordWorkingInstance': {
      const run = currentRun(migration, command.jobId);
      // A retried step finds its instance recorded already: the same name, no second event.
      if (workingInstanceOfRun(migration, run.number)) return [];
      return [{ type: 'MigrationWorkingInstanceRequested', data: { slug, number: run.number, jobId: run.job.jobId, instance: workingInstanceSlug(slug, run.number) } }];
    }
    case 'StartStep':
    case 'CompleteStep':
    case 'FailStep':
    case 'InterruptStep':
    case 'ReachGate':
    case 'FinishJob':
      return onRun(migration, currentRun(migration, command.jobId), command);
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const migrationDecider: Decider<MigrationState, MigrationCommand, MigrationEvent> = { decide, evolve: evolveMigration, initialState: initialMigrationState };

/** The steps of a run that are done (completed, reused or skipped), for pages and reports. */
export const doneSteps = (run: Run): string[] => run.job.plan.filter((step) => isStepDone(run.job.steps[step.id])).map((step) => step.id);
