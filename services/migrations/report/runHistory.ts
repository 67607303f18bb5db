import type { EventMetadata } from '#shared/eventStore/eventStore.ts';
import { asWorkflowEvent } from '#shared/workflow/workflowEvents.ts';
import { MIGRATION_WORKFLOW_PREFIX, type MigrationEvent } from '../domain/migration.ts';

/** A migration event as the store recorded it: what the folded state forgets (when, and who). */
export interface RecordedMigrationEvent {
  type: string;
  data: unknown;
  metadata: Pick<EventMetadata, 'actor' | 'at'>;
}

export interface StepTimes {
  /** When its first attempt in this run started. */
  startedAt: Date | null;
  /** When its last attempt ended (or its gate was resolved). */
  endedAt: Date | null;
  /** Time its attempts took, added up; a gate counts the time it waited. */
  durationMs: number | null;
}

/** A failed attempt, with the run log's lines the executor kept when it failed. */
export interface Failure {
  step: string;
  attempt: number;
  at: Date;
  error: string;
  retryable: boolean;
  logTail: readonly string[];
}

/** Something a person decided about the run: overriding a pre-flight, a gate, a pause, a resume, a cancel. */
export interface Decision {
  what: 'run-anyway' | 'gate' | 'pause' | 'resume' | 'cancel';
  actor: string;
  at: Date;
  /** The gate's step, for a gate decision. */
  step?: string;
  /** What was decided and why, in words (`approved: backup checked`). */
  detail: string;
  /** The earlier run it was made in, for a gate whose step this run reused. */
  fromRun?: number;
}

/** A run as its recorded events tell it, beyond the folded state: times, actors, failures with their log. */
export interface RunHistory {
  number: number;
  requestedBy: string;
  requestedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  steps: Readonly<Record<string, StepTimes>>;
  failures: readonly Failure[];
  decisions: readonly Decision[];
  /** Everyone named: for the e-mail lookup. */
  actors: readonly string[];
}

const dataOf = <T>(event: RecordedMigrationEvent) => event.data as T;

/** The history of run `number` from the migration's recorded events (a pure fold); null when the stream never had that run. */
export function runHistory(events: readonly RecordedMigrationEvent[], number: number): RunHistory | null {
  let history: RunHistory | null = null;
  let inherited: Decision[] = [];
  const steps: Record<string, StepTimes> = {};
  const attempts: Record<string, number> = {};
  const failures: Failure[] = [];
  const decisions: Decision[] = [];
  const addDuration = (step: string, ms: number | undefined) => {
    const times = steps[step];
    if (times && ms !== undefined) times.durationMs = (times.durationMs ?? 0) + ms;
  };
  for (const event of events) {
    const at = new Date(event.metadata.at);
    const { actor } = event.metadata;
    if (event.type === 'MigrationStopped') {
      // A stop drops its runs; a later run with the same number cannot exist (numbers are never reused), but be exact.
      if (dataOf<{ runs: number[] }>(event).runs.includes(number)) history = null;
      continue;
    }
    if ((event.data as { number?: unknown }).number !== number) continue;
    if (event.type === 'MigrationRunRequested') {
      const request = dataOf<Extract<MigrationEvent, { type: 'MigrationRunRequested' }>['data']>(event);
      history = { number, requestedBy: actor, requestedAt: at, startedAt: null, endedAt: null, steps, failures, decisions, actors: [] };
      inherited = request.resumedFrom === null ? [] : inheritedGates(events, request.resumedFrom, Object.keys(request.reused));
      if (request.kind === 'run-anyway') decisions.push({ what: 'run-anyway', actor, at, detail: `ran past the failed pre-flight of run ${request.resumedFrom}: ${request.reason ?? ''}`.trim() });
      continue;
    }
    if (!history) continue;
    const workflow = asWorkflowEvent(MIGRATION_WORKFLOW_PREFIX, event as MigrationEvent);
    if (!workflow) continue;
    switch (workflow.type) {
      case 'StepStarted': {
        const { step, attempt } = workflow.data;
        attempts[step] = attempt;
        steps[step] ??= { startedAt: at, endedAt: null, durationMs: null };
        history.startedAt ??= at;
        break;
      }
      case 'StepCompleted':
        if (steps[workflow.data.step]) steps[workflow.data.step]!.endedAt = at;
        addDuration(workflow.data.step, workflow.data.durationMs);
        break;
      case 'StepFailed': {
        const { step, error, retryable, logTail, durationMs } = workflow.data;
        if (steps[step]) steps[step]!.endedAt = at;
        addDuration(step, durationMs);
        failures.push({ step, attempt: attempts[step] ?? 1, at, error, retryable: retryable ?? false, logTail: logTail ?? [] });
        break;
      }
      case 'StepInterrupted':
        if (steps[workflow.data.step]) steps[workflow.data.step]!.endedAt = at;
        addDuration(workflow.data.step, workflow.data.durationMs);
        break;
      case 'GateReached':
        steps[workflow.data.step] ??= { startedAt: at, endedAt: null, durationMs: null };
        break;
      case 'GateResolved': {
        const { step, decision, by, note } = workflow.data;
        const times = steps[step];
        if (times) Object.assign(times, { endedAt: at, durationMs: times.startedAt ? at.getTime() - times.startedAt.getTime() : null });
        decisions.push({ what: 'gate', actor: by, at, step, detail: `${decision}${note ? `: ${note}` : ''}` });
        break;
      }
      case 'JobPaused':
        decisions.push({ what: 'pause', actor, at, detail: 'paused; the running step was stopped' });
        break;
      case 'JobResumed':
        decisions.push({ what: 'resume', actor, at, detail: 'resumed from the last checkpoint' });
        break;
      case 'JobCancelled':
        decisions.push({ what: 'cancel', actor, at, detail: `cancelled (${workflow.data.reason})` });
        history.endedAt = at;
        break;
      case 'JobSucceeded':
      case 'JobFailed':
        history.endedAt = at;
        break;
      default: {
        const unknown: never = workflow;
        return unknown;
      }
    }
  }
  if (!history) return null;
  const all = [...inherited, ...decisions];
  return { ...history, decisions: all, actors: [...new Set([history.requestedBy, ...all.map((decision) => decision.actor)])] };
}

/** The gate decisions of run `number` (and of the runs it resumed) whose steps a later run reused: they still stand. */
function inheritedGates(events: readonly RecordedMigrationEvent[], number: number, reused: readonly string[]): Decision[] {
  const earlier = runHistory(events, number);
  if (!earlier) return [];
  return earlier.decisions.filter((decision) => decision.what === 'gate' && decision.step !== undefined && reused.includes(decision.step)).map((decision) => ({ fromRun: number, ...decision }));
}
