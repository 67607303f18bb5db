import { getMigration, listMigrations, migrationActionViewOf, type MigrationDetailRow } from '#projections/erpMigrations/migrationDetail.ts';
import { artifactById, getRun, runArtifacts, runSteps, runsOf, type MigrationRunRow } from '#projections/erpMigrations/migrationRuns.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { HttpError } from '#shared/http/errors.ts';
import { allowedMigrationActions } from '#services/migrations/domain/migrationActions.ts';

/** The read model a migration command waits for before answering. */
export const MIGRATION_READ_MODELS = ['erp_migrations'] as const;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** MigrationOut (schemas/api/MigrationOut.v1.json): the contract only as its last 4 characters. */
export function migrationOut(row: MigrationDetailRow) {
  return {
    slug: row.slug,
    name: row.name,
    origin: row.origin,
    destination: row.destination,
    flavor: row.flavor,
    engine: row.engine,
    purpose: row.purpose,
    contract: row.contract_hint,
    notify_to: row.notify_to,
    status: row.status,
    recipe: { keys: row.recipe_key.split('+'), sha256: row.recipe_sha256 },
    working_database: row.working_database,
    input: row.input,
    project: row.project,
    code: row.code,
    last_run: row.last_run_number === null ? null : { number: row.last_run_number, status: row.last_run_status ?? 'queued' },
    allowed_actions: allowedMigrationActions(migrationActionViewOf(row)),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** RunOut; with its steps on the run's own page (and the API's run detail). */
export async function runOut(readModel: ReadModel, run: MigrationRunRow, withSteps: boolean) {
  const base = {
    number: run.number,
    status: run.status,
    kind: run.kind,
    checkpoint: run.checkpoint,
    resumed_from: run.resumed_from,
    skip_preflight: run.skip_preflight,
    reason: run.reason,
    requested_by: run.requested_by,
    error: run.error,
    started_at: iso(run.started_at),
    ended_at: iso(run.ended_at),
  };
  if (!withSteps) return base;
  const steps = await runSteps(readModel, run.job_id);
  return {
    ...base,
    steps: steps.map((step) => ({
      index: step.position,
      id: step.step_id,
      kind: step.kind,
      title: step.title,
      phase: step.phase,
      status: step.status,
      attempts: step.attempts,
      started_at: iso(step.started_at),
      ended_at: iso(step.ended_at),
      duration_ms: step.duration_ms,
      error: step.error,
      warnings: step.warnings,
      gate: step.gate,
    })),
    artifacts: (await runArtifacts(readModel, run)).map((artifact) => ({ id: artifact.id, kind: artifact.kind, name: artifact.name, bytes: artifact.bytes, sha256: artifact.sha256, created_at: artifact.created_at.toISOString() })),
  };
}

export async function migrationOr404(readModel: ReadModel, slug: string): Promise<MigrationDetailRow> {
  const row = await getMigration(readModel, slug);
  if (!row) throw new HttpError(404, `no migration ${slug}`);
  return row;
}

export async function runOr404(readModel: ReadModel, slug: string, number: number): Promise<MigrationRunRow> {
  const run = await getRun(readModel, slug, number);
  if (!run) throw new HttpError(404, `migration ${slug} has no run ${number}`);
  return run;
}

export { artifactById, listMigrations, runsOf };
