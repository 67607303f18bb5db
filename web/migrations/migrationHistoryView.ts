import { HIGHLIGHT_LABELS } from '#services/migrations/audit/migrationEventSummary.ts';
import type { MigrationStatus } from '#services/migrations/domain/migration.ts';
import type { JobStatus } from '#shared/workflow/jobState.ts';
import type { HistoryEntryOut } from './migrationHistoryOut.ts';
import { STATUS_TONE } from './migrationView.ts';

/** A history row as the page shows it: who in words, when to the second, what stands out in words. */
export function historyRowView(entry: HistoryEntryOut) {
  const system = entry.actor_id === 'system';
  return {
    ...entry,
    when: `${entry.at.slice(0, 19).replace('T', ' ')} UTC`,
    who: system ? 'system' : entry.actor,
    /** For system events: where and by what part of the platform it was decided. */
    whereFrom: system ? [entry.host, entry.via].filter(Boolean).join(' · ') : '',
    flag: entry.highlight ? HIGHLIGHT_LABELS[entry.highlight] : null,
  };
}

export type HistoryRowView = ReturnType<typeof historyRowView>;

/** The badge colour of a run's job status, from the palette the instance pages use. */
const RUN_TONE: Record<JobStatus, string> = {
  queued: 'queued',
  running: 'provisioning',
  waiting: 'sleeping',
  paused: 'stopped',
  succeeded: 'running',
  failed: 'failed',
  cancelled: 'failed',
};

export const migrationTone = (status: string): string => STATUS_TONE[status as MigrationStatus] ?? 'queued';
export const runTone = (status: string): string => RUN_TONE[status as JobStatus] ?? 'queued';

/** The step rows' look (`step-*` classes of the steps tables). */
export const stepTone = (status: string): string => ({ completed: 'completed', reused: 'completed', running: 'running', waiting: 'running', failed: 'failed' })[status] ?? 'pending';
