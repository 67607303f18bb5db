import type { InstanceDetailRow } from '#projections/instances/instanceDetail.ts';
import type { InstanceJobStepRow } from '#projections/instances/instanceJobSteps.ts';

/** Every status, in the order the list's filter offers them. */
export const STATUSES = ['queued', 'provisioning', 'running', 'failed', 'stopped', 'sleeping', 'destroyed'] as const;

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

/** Where the new database came from, in words. */
export function sourceText(source: InstanceDetailRow['source']): string {
  switch (source.kind) {
    case 'empty':
      return 'a new, empty database';
    case 'clone':
      return `a copy of ${source.from}`;
    case 'upload':
      return `an uploaded ${source.dumpFormat === 'custom' ? 'pg_dump custom' : 'plain SQL'} dump${source.hasFilestore ? ' with its filestore' : ''}`;
    default: {
      const unknown: never = source;
      return unknown;
    }
  }
}
