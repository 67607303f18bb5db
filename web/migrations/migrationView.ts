import type { MigrationRunRow, MigrationRunStepRow } from '#projections/erpMigrations/migrationRuns.ts';
import type { MigrationStepStatus } from '#projections/erpMigrations/migrationRunSteps.table.ts';
import type { MigrationStatus } from '#services/migrations/domain/migration.ts';
import type { JobStatus } from '#shared/workflow/jobState.ts';
import { formatDuration } from '../instances/instanceView.ts';

/** The badge colour of each status, from the palette the instance pages use. */
export const STATUS_TONE: Record<MigrationStatus, string> = {
  draft: 'queued',
  queued: 'queued',
  running: 'provisioning',
  waiting: 'sleeping',
  paused: 'stopped',
  errored: 'failed',
  migrated: 'running',
};

/** The badge colour of a run's status. */
const RUN_TONE: Record<JobStatus, string> = {
  queued: 'queued',
  running: 'provisioning',
  waiting: 'sleeping',
  paused: 'stopped',
  succeeded: 'running',
  failed: 'failed',
  cancelled: 'failed',
};

/** A step row's look (`step-*` classes of the instance steps table). */
const STEP_TONE: Record<MigrationStepStatus, string> = {
  pending: 'pending',
  skipped: 'pending',
  cancelled: 'pending',
  running: 'running',
  waiting: 'running',
  completed: 'completed',
  reused: 'completed',
  failed: 'failed',
};

/** The statuses during which things happen without anyone acting: the pages follow them every 2 s. */
export const isLive = (status: MigrationStatus | JobStatus): boolean => status === 'queued' || status === 'running';

/** A moment as the pages show it (UTC, to the minute); '' for none. */
export const when = (date: Date | null): string => (date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '');

export interface StepView {
  position: number;
  id: string;
  title: string;
  kind: string;
  phase: string;
  status: MigrationStepStatus;
  tone: string;
  attempts: number;
  /** Taken (ended steps) or so far (the running one); '' before it starts. */
  duration: string;
  error: string | null;
  warnings: string[];
  gate: string | null;
}

export function stepViews(steps: readonly MigrationRunStepRow[], now: Date): StepView[] {
  return steps.map((step) => {
    const elapsed = step.duration_ms ?? ((step.status === 'running' || step.status === 'waiting') && step.started_at ? now.getTime() - step.started_at.getTime() : null);
    return {
      position: step.position,
      id: step.step_id,
      title: step.title,
      kind: step.kind,
      phase: step.phase,
      status: step.status,
      tone: STEP_TONE[step.status],
      attempts: step.attempts,
      duration: elapsed === null ? '' : formatDuration(Number(elapsed)),
      error: step.error,
      warnings: step.warnings,
      gate: step.gate,
    };
  });
}

export function runView(run: MigrationRunRow) {
  return {
    number: run.number,
    kind: run.kind,
    status: run.status,
    tone: RUN_TONE[run.status],
    checkpoint: run.checkpoint,
    resumedFrom: run.resumed_from,
    reason: run.reason,
    error: run.error,
    started: when(run.started_at),
    ended: when(run.ended_at),
    live: isLive(run.status),
  };
}

/**
 * The sentence a status card says (and reads out, through its live region) about a run: what it
 * is doing, or how it ended.
 */
export function progressText(run: MigrationRunRow | undefined, steps: readonly StepView[]): string {
  if (!run) return 'A draft: no run yet.';
  const at = (status: MigrationStepStatus) => steps.find((step) => step.status === status);
  switch (run.status) {
    case 'queued':
      return `Run ${run.number} is queued: it starts when an executor takes it.`;
    case 'running': {
      const step = at('running');
      return step ? `Run ${run.number} is running step ${step.position + 1} of ${steps.length}: ${step.title}.` : `Run ${run.number} is running.`;
    }
    case 'waiting': {
      const step = at('waiting');
      return step ? `Run ${run.number} waits for a decision at ${step.title}: ${step.gate ?? ''}` : `Run ${run.number} waits for a decision.`;
    }
    case 'paused':
      return `Run ${run.number} is paused${run.checkpoint ? ` after ${run.checkpoint}` : ''}; resuming goes on from there.`;
    case 'failed':
      return `Run ${run.number} failed${run.error ? `: ${run.error}` : '.'}`;
    case 'cancelled':
      return `Run ${run.number} was cancelled${run.error ? `: ${run.error}` : '.'}`;
    case 'succeeded':
      return `Run ${run.number} migrated the database.`;
    default: {
      const unknown: never = run.status;
      return unknown;
    }
  }
}
