import type { Selectable } from 'kysely';
import type { Run } from '#services/migrations/domain/migration.ts';
import type { JobState, StepState } from '#shared/workflow/jobState.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import type { ReadModel } from '../readModel.ts';
import type { MigrationRunsTable } from './migrationRuns.table.ts';
import { runReports } from './migrationRunReports.ts';
import type { MigrationRunStepsTable, MigrationStepStatus } from './migrationRunSteps.table.ts';

export type MigrationRunRow = Selectable<MigrationRunsTable>;
export type MigrationRunStepRow = Selectable<MigrationRunStepsTable>;

/** A migration's runs, the most recent first. */
/** Runs an executor was on (queued or running) when the platform stopped: a restarted all-in-one queues them again. */
export function liveRuns(db: ReadModel): Promise<Array<Pick<MigrationRunRow, 'slug' | 'number' | 'job_id'>>> {
  return db.selectFrom('migration_runs').select(['slug', 'number', 'job_id']).where('status', 'in', ['queued', 'running']).orderBy('slug').orderBy('number').execute();
}

export function runsOf(db: ReadModel, slug: string): Promise<MigrationRunRow[]> {
  return db.selectFrom('migration_runs').selectAll().where('slug', '=', slug).orderBy('number', 'desc').execute();
}

export function getRun(db: ReadModel, slug: string, number: number): Promise<MigrationRunRow | undefined> {
  return db.selectFrom('migration_runs').selectAll().where('slug', '=', slug).where('number', '=', number).executeTakeFirst();
}

/** A run's steps, in plan order. */
export function runSteps(db: ReadModel, jobId: string): Promise<MigrationRunStepRow[]> {
  return db.selectFrom('migration_run_steps').selectAll().where('job_id', '=', jobId).orderBy('position').execute();
}

/** How the run page names and groups a plan step. */
export function stepLabels(step: PlannedStep): Pick<MigrationRunStepRow, 'step_id' | 'kind' | 'title' | 'phase'> {
  const title = step.params['title'];
  return { step_id: step.id, kind: step.type, title: typeof title === 'string' && title !== '' ? title : step.id, phase: step.params['phase'] === 'preflight' ? 'preflight' : 'main' };
}

/** The columns a step's state decides. */
export function stepColumns(state: StepState): Pick<MigrationRunStepRow, 'status' | 'attempts' | 'error' | 'gate' | 'facts' | 'warnings'> {
  const facts = state.status === 'completed' || state.status === 'reused' ? state.facts : null;
  const warnings = facts !== null && 'warnings' in facts && Array.isArray(facts.warnings) ? facts.warnings.filter((warning): warning is string => typeof warning === 'string') : [];
  return {
    status: state.status === 'pending' && state.interrupted === 'cancel' ? 'cancelled' : state.status,
    attempts: state.attempts,
    error: state.status === 'failed' ? state.error : null,
    gate: state.status === 'waiting' ? state.gate : null,
    facts,
    warnings,
  };
}

/**
 * The run as the domain folds it, read back from its rows, so the projection moves it on with the
 * domain's own `evolveJob` and `statusOf`. What the rows do not keep (attempt ids, retry policies,
 * timeouts) changes no status, checkpoint or column.
 */
export function runOf(run: MigrationRunRow, steps: readonly MigrationRunStepRow[]): Run {
  const job: JobState = {
    jobId: run.job_id,
    kind: run.kind,
    plan: steps.map((step) => ({ id: step.step_id, type: step.kind, params: { title: step.title, phase: step.phase } })),
    status: run.status,
    steps: Object.fromEntries(steps.map((step) => [step.step_id, stepState(step)])),
    error: run.error,
  };
  return { number: run.number, kind: run.kind, job, resumedFrom: run.resumed_from, skipPreflight: run.skip_preflight };
}

function stepState(row: MigrationRunStepRow): StepState {
  const { attempts } = row;
  const status: MigrationStepStatus = row.status;
  switch (status) {
    case 'pending':
      return { status, attempts };
    case 'cancelled':
      return { status: 'pending', attempts, interrupted: 'cancel' };
    case 'running':
      return { status, attempts, attemptId: undefined, executor: undefined };
    case 'completed':
    case 'reused':
      return { status, attempts, facts: row.facts ?? {} };
    case 'skipped':
      return { status, attempts };
    case 'failed':
      return { status, attempts, error: row.error ?? '', retryable: false };
    case 'waiting':
      return { status, attempts, attemptId: undefined, gate: row.gate ?? '' };
    default: {
      const unknown: never = status;
      return unknown;
    }
  }
}

/** A file a run produced (a step's `artifact` fact), as the API and web list it. */
export interface RunArtifact {
  /** Unique within the migration: run number × 1000 + the step's position in the plan; a report generated on demand counts down from run number × 1000 + 999. */
  id: number;
  kind: string;
  name: string;
  /** Where it is in blob storage. */
  key: string;
  bytes: number;
  sha256: string;
  /** The ERP version of the database in a backup or dump (`17.0`), when the step recorded it; null otherwise. */
  erp_version: string | null;
  created_at: Date;
}

const artifactOf = (number: number, step: MigrationRunStepRow): RunArtifact | null => {
  const artifact = (step.facts as { artifact?: Omit<RunArtifact, 'id' | 'created_at' | 'erp_version'> & { erpVersion?: unknown } } | null)?.artifact;
  if (!artifact || step.status !== 'completed') return null;
  const erpVersion = typeof artifact.erpVersion === 'string' ? artifact.erpVersion : null;
  return { id: number * 1000 + step.position, kind: artifact.kind, name: artifact.name, key: artifact.key, bytes: artifact.bytes, sha256: artifact.sha256, erp_version: erpVersion, created_at: step.ended_at ?? new Date(0) };
};

/** The artifacts of a run: its steps', in plan order, then the reports generated on demand, oldest first. */
export async function runArtifacts(db: ReadModel, run: Pick<MigrationRunRow, 'slug' | 'job_id' | 'number'>): Promise<RunArtifact[]> {
  const made = (await runSteps(db, run.job_id)).map((step) => artifactOf(run.number, step)).filter((artifact): artifact is RunArtifact => artifact !== null);
  const reports = (await runReports(db, run.slug, run.number)).map(({ artifact_id, name, key, bytes, sha256, created_at }) => ({ id: artifact_id, kind: 'report', name, key, bytes, sha256, erp_version: null, created_at }));
  return [...made, ...reports];
}

/** One artifact of a migration by its id, or undefined. */
export async function artifactById(db: ReadModel, slug: string, id: number): Promise<RunArtifact | undefined> {
  const run = await getRun(db, slug, Math.floor(id / 1000));
  if (!run) return undefined;
  return (await runArtifacts(db, run)).find((artifact) => artifact.id === id);
}

/** The artifacts numbered `id` in every migration (ids are unique within a migration only), each with its migration's slug. */
export async function artifactsNumbered(db: ReadModel, id: number): Promise<Array<RunArtifact & { slug: string }>> {
  const number = Math.floor(id / 1000);
  const steps = await db.selectFrom('migration_run_steps').selectAll().where('number', '=', number).where('position', '=', id % 1000).orderBy('slug').execute();
  return steps.flatMap((step) => {
    const artifact = artifactOf(number, step);
    return artifact ? [{ ...artifact, slug: step.slug }] : [];
  });
}
