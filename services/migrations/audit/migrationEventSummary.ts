import type { MigrationEvent } from '../domain/migration.ts';

/**
 * One line per event of a migration's stream, for its history, and the events an auditor looks
 * for first: operator overrides, gate decisions, recipe resyncs, stops and deletes.
 */

export const HIGHLIGHTS = ['override', 'gate', 'resync', 'stop', 'delete'] as const;
export type Highlight = (typeof HIGHLIGHTS)[number];

/** The text label a highlighted row carries, so it stands out without relying on colour. */
export const HIGHLIGHT_LABELS: Readonly<Record<Highlight, string>> = { override: 'Override', gate: 'Gate decision', resync: 'Resync', stop: 'Stop', delete: 'Delete' };

interface StoredEvent {
  type: string;
  data: unknown;
}

const seconds = (ms: number | undefined) => (ms === undefined ? '' : ms < 1000 ? ` in ${ms} ms` : ` in ${(ms / 1000).toFixed(1)} s`);
const quoted = (text: string | undefined) => (text ? `: “${text}”` : '');

/** Why the event stands out, or null for the ordinary ones. */
export function highlightOf(event: StoredEvent): Highlight | null {
  const known = event as MigrationEvent;
  // Resync events may come in newer types than this code knows: any type naming a resync counts.
  if (/Resync/.test(event.type)) return 'resync';
  if (known.type === 'MigrationRunRequested') return known.data.kind === 'run-anyway' ? 'override' : null;
  if (known.type === 'MigrationGateResolved') return 'gate';
  if (known.type === 'MigrationEdited') return known.data.changes.recipe ? 'resync' : null;
  if (known.type === 'MigrationStopped') return 'stop';
  if (known.type === 'MigrationDeleted') return 'delete';
  return null;
}

/** The run an event belongs to, or null for the migration's own events (created, edited, stopped, deleted). */
export function runOf(event: StoredEvent): number | null {
  if (event.type === 'MigrationCreated' || event.type === 'MigrationEdited') return null;
  const number = (event.data as { number?: unknown } | null)?.number;
  return typeof number === 'number' && Number.isSafeInteger(number) ? number : null;
}

/** What happened, in one line. */
export function summarizeMigrationEvent(event: StoredEvent): string {
  const known = event as MigrationEvent;
  switch (known.type) {
    case 'MigrationCreated': {
      const { data } = known;
      return `Created: ${data.origin} → ${data.destination}, ${data.flavor}, ${data.engine}, ${data.purpose}; recipe ${data.recipe.key}; input ${data.input.mode}`;
    }
    case 'MigrationEdited': {
      const { changes } = known.data;
      const fields = Object.keys(changes).filter((field) => field !== 'recipe');
      const recipe = changes.recipe ? `recipe now ${changes.recipe.key} (sha256 ${changes.recipe.sha256.slice(0, 12)}…)` : '';
      return `Edited: ${[recipe, ...fields].filter(Boolean).join(', ')}`;
    }
    case 'MigrationRunRequested': {
      const { data } = known;
      const reused = Object.keys(data.reused).length;
      if (data.kind === 'run-anyway') return `Run ${data.number} requested anyway, past the failed pre-flight of run ${data.resumedFrom}${quoted(data.reason)}`;
      if (data.kind === 'resume') return `Run ${data.number} requested, resuming run ${data.resumedFrom} (${reused} step${reused === 1 ? '' : 's'} reused)`;
      return `Run ${data.number} requested: ${data.plan.length} steps`;
    }
    case 'MigrationStepStarted':
      return `Run ${known.data.number}: ${known.data.step} started (attempt ${known.data.attempt})${known.data.executor ? ` on ${known.data.executor}` : ''}`;
    case 'MigrationStepCompleted':
      return `Run ${known.data.number}: ${known.data.step} ${known.data.as ?? 'completed'}${seconds(known.data.durationMs)}`;
    case 'MigrationStepFailed':
      return `Run ${known.data.number}: ${known.data.step} failed${seconds(known.data.durationMs)}: ${known.data.error}${known.data.retryable ? ' (retryable)' : ''}`;
    case 'MigrationStepInterrupted':
      return `Run ${known.data.number}: ${known.data.step} interrupted (${known.data.reason})`;
    case 'MigrationGateReached':
      return `Run ${known.data.number}: waits at ${known.data.step}${quoted(known.data.message)}`;
    case 'MigrationGateResolved':
      return `Run ${known.data.number}: ${known.data.step} ${known.data.decision} by ${known.data.by}${quoted(known.data.note)}`;
    case 'MigrationJobPaused':
      return `Run ${known.data.number} paused`;
    case 'MigrationJobResumed':
      return `Run ${known.data.number} resumed`;
    case 'MigrationJobSucceeded':
      return `Run ${known.data.number} succeeded`;
    case 'MigrationJobFailed':
      return `Run ${known.data.number} failed at ${known.data.step}: ${known.data.error}`;
    case 'MigrationJobCancelled':
      return `Run ${known.data.number} cancelled (${known.data.reason})`;
    case 'MigrationStopped':
      return `Stopped: back to draft${known.data.runs.length ? `, run${known.data.runs.length === 1 ? '' : 's'} ${known.data.runs.join(', ')} dropped` : ''}`;
    case 'MigrationDeleted':
      return 'Deleted';
    case 'MigrationWorkingInstanceRequested':
      return `Run ${known.data.number}: working instance ${known.data.instance} requested`;
    case 'MigrationReportGenerated':
      return `Run ${known.data.number}: report ${known.data.artifact.name} generated by ${known.data.by}`;
    case 'MigrationResynced': {
      const changed = known.data.changes.length === 0 ? 'no step differs' : `${known.data.changes.length} step${known.data.changes.length === 1 ? '' : 's'} differ`;
      return known.data.decision === 'adopt' ? `Resync: adopted ${known.data.to.key} (${changed})` : `Resync: kept the recipe as it was (${changed} from ${known.data.to.key})`;
    }
    default: {
      // A stream may hold events newer than this code: they are listed by their type.
      const unknown: never = known;
      return (unknown as StoredEvent).type;
    }
  }
}
