import { sql } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { evolveJob, isJobEnded, newJob, type JobState, type StepState } from '#shared/workflow/jobState.ts';
import { asWorkflowEvent, prefixed, WORKFLOW_EVENT_TYPES, type WorkflowEvent } from '#shared/workflow/workflowEvents.ts';
import { checkpointOf, failedInPreflight, MIGRATION_WORKFLOW_PREFIX, statusOf, type MigrationEvent, type RunRequest } from '#services/migrations/domain/migration.ts';
import type { ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import { draftRow, editedColumns } from './migrationDetail.ts';
import { addRunReport, deleteRunReports } from './migrationRunReports.ts';
import { runOf, stepColumns, stepLabels, type MigrationRunRow, type MigrationRunStepRow } from './migrationRuns.ts';

const MIGRATION_OWN_EVENT_TYPES = ['MigrationCreated', 'MigrationEdited', 'MigrationRunRequested', 'MigrationStopped', 'MigrationDeleted', 'MigrationReportGenerated', 'MigrationResynced'] as const;

/**
 * The migration detail, its runs and their steps, kept by one projection: a migration's status is
 * its last run's, which the run's steps decide (a resume waits again when a step waits at a gate;
 * a failure is a pre-flight one when the failed step is), so the three are written together.
 * Each run is folded with the domain's `evolveJob`, and the migration's status is the domain's
 * `statusOf`: the read model cannot drift from what the decider decides on.
 */
export const erpMigrationsProjection: Projection<ReadModelDatabase> = {
  name: 'erp_migrations',
  eventTypes: [...MIGRATION_OWN_EVENT_TYPES, ...WORKFLOW_EVENT_TYPES.map((type) => prefixed(MIGRATION_WORKFLOW_PREFIX, type))],
  tables: ['migration_detail', 'migration_runs', 'migration_run_steps', 'migration_run_reports'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    const batch: BatchRuns = new Map();
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as MigrationEvent;
      const at = new Date(recorded.metadata.at);
      const { slug } = event.data;
      const workflow = asWorkflowEvent(MIGRATION_WORKFLOW_PREFIX, event);
      if (workflow) {
        await applyToRun(trx, batch, slug, workflow, at);
        if (workflow.type === 'StepCompleted') await recordFetchedInput(trx, slug, workflow.data);
        continue;
      }
      switch (event.type) {
        case 'MigrationCreated': {
          const row = draftRow(event.data, recorded.metadata.actor, at);
          await trx.insertInto('migration_detail').values(row).onConflict((oc) => oc.column('slug').doUpdateSet(row)).execute();
          break;
        }
        case 'MigrationEdited':
          await trx.updateTable('migration_detail').set({ ...editedColumns(event.data.changes), updated_at: at }).where('slug', '=', slug).execute();
          break;
        case 'MigrationRunRequested':
          await requestRun(trx, batch, event.data, recorded.metadata.actor, at);
          break;
        case 'MigrationStopped':
          batch.clear();
          await deleteRuns(trx, slug);
          await trx.updateTable('migration_detail').set({ status: 'draft', last_run_number: null, last_run_status: null, preflight_failed: false, migrated_recipe_sha256: null, updated_at: at }).where('slug', '=', slug).execute();
          break;
        case 'MigrationDeleted':
          batch.clear();
          await deleteRuns(trx, slug);
          await trx.deleteFrom('migration_detail').where('slug', '=', slug).execute();
          break;
        case 'MigrationReportGenerated':
          await addRunReport(trx, event.data, at);
          break;
        case 'MigrationResynced':
          // Adopting the current recipe changes the migration's snapshot; keeping it changes nothing shown.
          if (event.data.decision === 'adopt' && event.data.recipe) {
            await trx.updateTable('migration_detail').set({ recipe_key: event.data.recipe.key, recipe_sha256: event.data.recipe.sha256, updated_at: at }).where('slug', '=', slug).execute();
          }
          break;
        // The workflow's events were applied above.
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
          break;
        // Not subscribed to: the executor reads it from the stream; no page shows it yet.
        case 'MigrationWorkingInstanceRequested':
          break;
        default: {
          const unknown: never = event;
          return unknown;
        }
      }
    }
  },
};

/** What `fetch` learnt of the input (its size and sha256) shows on the migration, as the API's `input`. */
async function recordFetchedInput(trx: ReadModelTransaction, slug: string, completed: { jobId: string; step: string; facts: object }): Promise<void> {
  const { bytes, sha256 } = completed.facts as { bytes?: unknown; sha256?: unknown };
  if (typeof bytes !== 'number' || typeof sha256 !== 'string') return;
  const step = await trx.selectFrom('migration_run_steps').select('kind').where('job_id', '=', completed.jobId).where('step_id', '=', completed.step).executeTakeFirst();
  if (step?.kind !== 'fetch') return;
  await trx
    .updateTable('migration_detail')
    .set({ input: sql`input || ${JSON.stringify({ bytes, sha256 })}::jsonb` })
    .where('slug', '=', slug)
    .execute();
}

async function deleteRuns(trx: ReadModelTransaction, slug: string): Promise<void> {
  await deleteRunReports(trx, slug);
  await trx.deleteFrom('migration_run_steps').where('slug', '=', slug).execute();
  await trx.deleteFrom('migration_runs').where('slug', '=', slug).execute();
}

/** The run's row and its steps, as its request leaves them (reused and skipped steps are done before anything runs); a redelivered request writes them afresh. */
async function requestRun(trx: ReadModelTransaction, batch: BatchRuns, request: RunRequest, requestedBy: string, at: Date): Promise<void> {
  const job = newJob({ jobId: request.jobId, kind: request.kind, plan: request.plan });
  const preset = (id: string): StepState => {
    const facts = request.reused[id];
    if (facts) return { status: 'reused', attempts: 0, facts };
    return request.skipped.includes(id) ? { status: 'skipped', attempts: 0 } : { status: 'pending', attempts: 0 };
  };
  const steps = request.plan.map((step, position) => ({
    job_id: request.jobId,
    position,
    slug: request.slug,
    number: request.number,
    ...stepLabels(step),
    ...stepColumns(preset(step.id)),
    started_at: null,
    ended_at: null,
    duration_ms: null,
  }));
  const run = {
    slug: request.slug,
    number: request.number,
    job_id: request.jobId,
    kind: request.kind,
    status: job.status,
    checkpoint: null,
    resumed_from: request.resumedFrom,
    skip_preflight: request.skipPreflight,
    reason: request.reason ?? null,
    requested_by: requestedBy,
    error: null,
    started_at: null,
    ended_at: null,
    created_at: at,
  };
  const checkpoint = checkpointOf(runOf(run, steps).job);
  await trx.deleteFrom('migration_run_steps').where('job_id', '=', request.jobId).execute();
  await trx.insertInto('migration_run_steps').values(steps.map((step) => ({ ...step, warnings: JSON.stringify(step.warnings), facts: step.facts && JSON.stringify(step.facts) }))).execute();
  const row = { ...run, checkpoint };
  await trx.insertInto('migration_runs').values(row).onConflict((oc) => oc.columns(['slug', 'number']).doUpdateSet(row)).execute();
  batch.set(request.jobId, { run: row, steps });
  await trx
    .updateTable('migration_detail')
    .set({ status: statusOf([runOf(row, steps)]), last_run_number: request.number, last_run_status: job.status, preflight_failed: false, migrated_recipe_sha256: null, updated_at: at })
    .where('slug', '=', request.slug)
    .execute();
}

/** The runs a batch has read or written, by job id: consecutive events of one run read it once. */
type BatchRuns = Map<string, { run: MigrationRunRow; steps: MigrationRunStepRow[] }>;

/** Folds a workflow event into its run with the domain's `evolveJob`, then writes what changed: the step, the run, and the migration when it is the last run. */
async function applyToRun(trx: ReadModelTransaction, batch: BatchRuns, slug: string, event: WorkflowEvent, at: Date): Promise<void> {
  const { jobId } = event.data;
  let loaded = batch.get(jobId);
  if (!loaded) {
    const run = await trx.selectFrom('migration_runs').selectAll().where('job_id', '=', jobId).executeTakeFirst();
    if (!run) return;
    loaded = { run, steps: await trx.selectFrom('migration_run_steps').selectAll().where('job_id', '=', jobId).orderBy('position').execute() };
  }
  const before = runOf(loaded.run, loaded.steps);
  const job = evolveJob(before.job, event);
  const stepId = 'step' in event.data && event.type !== 'JobFailed' ? event.data.step : undefined;
  const steps = loaded.steps.map((row) => {
    const state = row.step_id === stepId ? job.steps[row.step_id] : undefined;
    return state ? { ...row, ...stepColumns(state), ...stepTimes(event, row, at) } : row;
  });
  const changed = steps.find((row, index) => row !== loaded.steps[index]);
  if (changed) {
    const { job_id, position, facts, warnings, ...columns } = changed;
    await trx
      .updateTable('migration_run_steps')
      .set({ ...columns, facts: facts && JSON.stringify(facts), warnings: JSON.stringify(warnings) })
      .where('job_id', '=', job_id)
      .where('position', '=', position)
      .execute();
  }
  const columns = runColumns(loaded.run, job, event, at);
  await trx.updateTable('migration_runs').set(columns).where('job_id', '=', jobId).execute();
  const run = { ...loaded.run, ...columns };
  batch.set(jobId, { run, steps });
  const last = { ...before, job };
  const [asLast] = await trx
    .updateTable('migration_detail')
    .set((eb) => ({
      status: statusOf([last]),
      last_run_status: job.status,
      preflight_failed: failedInPreflight(last),
      // A resync cannot happen during a run: the recipe now is the one the run followed.
      migrated_recipe_sha256: statusOf([last]) === 'migrated' ? eb.ref('recipe_sha256') : null,
      updated_at: at,
    }))
    .where('slug', '=', slug)
    .where('last_run_number', '=', run.number)
    .execute();
  // Only the last run's events reach a migration (the decider takes no other), but an earlier run's would not move its status.
  if (asLast?.numUpdatedRows === 0n) await trx.updateTable('migration_detail').set({ updated_at: at }).where('slug', '=', slug).execute();
}

function runColumns(row: MigrationRunRow, job: JobState, event: WorkflowEvent, at: Date): Partial<MigrationRunRow> {
  return {
    status: job.status,
    error: job.error,
    checkpoint: checkpointOf(job),
    ...(event.type === 'StepStarted' && row.started_at === null ? { started_at: at } : {}),
    ...(isJobEnded(job) && !isJobEnded(row) ? { ended_at: at } : {}),
  };
}

/** When the step's attempt started and ended, and how long it took, as far as `event` says. */
function stepTimes(event: WorkflowEvent, row: MigrationRunStepRow, at: Date): Partial<MigrationRunStepRow> {
  switch (event.type) {
    case 'StepStarted':
      // A retry starts afresh: the failed attempt's end and duration are not this one's.
      return { started_at: at, ended_at: null, duration_ms: null };
    case 'StepCompleted':
    case 'StepFailed':
      return { ended_at: at, duration_ms: event.data.durationMs };
    case 'StepInterrupted':
      return { ended_at: at, duration_ms: event.data.durationMs ?? null };
    case 'GateResolved':
      return { ended_at: at, duration_ms: row.started_at ? at.getTime() - row.started_at.getTime() : null };
    case 'GateReached':
    case 'JobPaused':
    case 'JobResumed':
    case 'JobSucceeded':
    case 'JobFailed':
    case 'JobCancelled':
      return {};
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}
