import type { InstanceDetailRow } from '#projections/instances/instanceDetail.ts';
import type { InstanceJobStepRow } from '#projections/instances/instanceJobSteps.ts';
import type { JobKind } from '#services/instances/domain/instance.ts';

/** A duration as people read it: 850 ms, 4.2 s, 3 min 07 s, 1 h 02 min. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
}

export interface StepView {
  step: string;
  label: string;
  state: string;
  attempts: number;
  /** Taken (ended steps) or so far (the running one); '' before it starts. */
  duration: string;
  error: string | null;
  logTail: string[];
}

/** The job's steps as the status block shows them. */
export function stepViews(steps: InstanceJobStepRow[], now: Date): StepView[] {
  return steps.map((step) => {
    const elapsed = step.duration_ms ?? (step.state === 'running' && step.started_at ? now.getTime() - step.started_at.getTime() : null);
    return {
      step: step.step,
      label: step.step.replace(/_/g, ' '),
      state: step.state,
      attempts: step.attempts,
      duration: elapsed === null ? '' : formatDuration(elapsed),
      error: step.error,
      logTail: step.state === 'failed' ? (step.log_tail ?? []) : [],
    };
  });
}

/** A job in progress in words; a provisioning shows its own status (queued, provisioning) instead. */
const JOB_IN_PROGRESS: Record<Exclude<JobKind, 'provision'>, string> = {
  start: 'starting',
  stop: 'stopping',
  restart: 'restarting',
  rebuild: 'rebuilding',
  destroy: 'destroying',
  sleep: 'going to sleep',
};

export interface StatusBadge {
  label: string;
  /** The `status-*` class: the status itself, or `busy` for a job in progress. */
  tone: string;
}

/**
 * The status badge. A job other than a provisioning leaves the status as it was until the job ends
 * (`running` through a restart, while the ERP is stopped), so the badge names the job and its step
 * instead: "restarting · step 2 of 3".
 */
export function statusBadge(instance: Pick<InstanceDetailRow, 'status' | 'job_active' | 'job_kind'>, steps: ReadonlyArray<Pick<InstanceJobStepRow, 'step' | 'state'>>): StatusBadge {
  const atRest = { label: instance.status, tone: instance.status };
  if (!instance.job_active || !(instance.job_kind in JOB_IN_PROGRESS)) return atRest;
  // A rebuild of a never-provisioned instance runs the provisioning plan (the only one with a database step).
  if (steps.some((step) => step.step === 'database')) return atRest;
  const words = JOB_IN_PROGRESS[instance.job_kind as keyof typeof JOB_IN_PROGRESS];
  if (steps.length === 0) return { label: words, tone: 'busy' };
  const running = steps.findIndex((step) => step.state === 'running');
  const current = running >= 0 ? running + 1 : Math.min(steps.filter((step) => step.state === 'completed').length + 1, steps.length);
  return { label: `${words} · step ${current} of ${steps.length}`, tone: 'busy' };
}

/** Where the new database came from, in words. */
export function sourceText(source: InstanceDetailRow['source']): string {
  switch (source.kind) {
    case 'empty':
      return 'a new, empty database';
    case 'clone':
      return `a copy of ${source.from}`;
    case 'upload':
      return `an uploaded ${source.dumpFormat === 'custom' ? 'pg_dump custom' : 'plain SQL'} dump${source.hasFilestore ? ' with its filestore' : ''}`;
    case 'migration':
      return `the result of run ${source.run} of migration ${source.migration}`;
    case 'artifact':
      return `the ${source.artifactKind} of run ${source.run} of migration ${source.migration}${source.filestoreKey ? ' with its filestore' : ''}`;
    default: {
      const unknown: never = source;
      return unknown;
    }
  }
}
