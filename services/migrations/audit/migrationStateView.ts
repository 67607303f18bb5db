import type { StepState } from '#shared/workflow/jobState.ts';
import { migrationDecider } from '../domain/migration.decider.ts';
import { isPreflight, type MigrationEvent, type MigrationInput, type MigrationState, type Run } from '../domain/migration.ts';

/** Where the database came from, as the API names it (no upload id: it is internal). */
export interface InputView {
  mode: MigrationInput['mode'];
  pull_url: string | null;
  dump_name: string | null;
  filestore_name: string | null;
  bytes: number | null;
  sha256: string | null;
}

/**
 * A migration's state as an auditor reads it: folded from its events alone with the decider the
 * service decides with, never taken from a read model.
 */

export interface StepView {
  id: string;
  type: string;
  phase: string;
  status: StepState['status'];
  attempts: number;
  /** Why it failed, or the question of the gate it waits at. */
  note: string | null;
}

export interface RunView {
  number: number;
  kind: string;
  status: string;
  resumed_from: number | null;
  skip_preflight: boolean;
  error: string | null;
  steps: StepView[];
}

export type MigrationStateView =
  | { exists: false }
  | {
      exists: true;
      slug: string;
      name: string;
      status: string;
      deleted: boolean;
      route: { origin: string; destination: string; flavor: string; engine: string; purpose: string };
      contract: string | null;
      notify_to: string[];
      input: InputView;
      recipe: { key: string; sha256: string };
      working_database: string;
      runs: RunView[];
    };

/**
 * The state after the first `version` events of the stream (all of them when `version` is larger).
 * Stored events are typed loosely; a migration stream holds migration events.
 */
export function migrationStateAsOf(events: readonly { type: string; data: unknown }[], version: number): MigrationState {
  return events.slice(0, Math.max(0, version)).reduce((state, event) => migrationDecider.evolve(state, event as MigrationEvent), migrationDecider.initialState());
}

function stepNote(step: StepState | undefined): string | null {
  if (step?.status === 'failed') return step.error;
  if (step?.status === 'waiting') return step.gate;
  return null;
}

function inputView(input: MigrationInput): InputView {
  const none = { pull_url: null, dump_name: null, filestore_name: null, bytes: null, sha256: null };
  switch (input.mode) {
    case 'pull':
      return { ...none, mode: 'pull', pull_url: input.pullUrl };
    case 'upload':
      return { ...none, mode: 'upload', dump_name: input.dumpName, filestore_name: input.filestoreName, bytes: input.bytes, sha256: input.sha256 };
    case 'none':
      return { ...none, mode: 'none' };
    default: {
      const unknown: never = input;
      return unknown;
    }
  }
}

function runView(run: Run): RunView {
  const { job } = run;
  return {
    number: run.number,
    kind: run.kind,
    status: job.status,
    resumed_from: run.resumedFrom,
    skip_preflight: run.skipPreflight,
    error: job.error,
    steps: job.plan.map((step) => {
      const state = job.steps[step.id];
      return { id: step.id, type: step.type, phase: isPreflight(step) ? 'preflight' : String(step.params['phase'] ?? 'main'), status: state?.status ?? 'pending', attempts: state?.attempts ?? 0, note: stepNote(state) };
    }),
  };
}

export function migrationStateView(state: MigrationState): MigrationStateView {
  if (state.status === 'none') return { exists: false };
  return {
    exists: true,
    slug: state.slug,
    name: state.name,
    status: state.status,
    deleted: state.deleted,
    route: { origin: state.origin, destination: state.destination, flavor: state.flavor, engine: state.engine, purpose: state.purpose },
    contract: state.contract,
    notify_to: [...state.notifyTo],
    input: inputView(state.input),
    recipe: { key: state.recipe.key, sha256: state.recipe.sha256 },
    working_database: state.workingDatabase,
    runs: state.runs.map(runView),
  };
}

/** The state in a few lines of text, for the verifier's report. */
export function describeMigrationState(view: MigrationStateView): string[] {
  if (!view.exists) return ['no migration'];
  const { route } = view;
  const lines = [
    `migration ${view.slug} (${view.name}): ${route.origin} -> ${route.destination}, ${route.flavor}, ${route.engine}, ${route.purpose}`,
    `status: ${view.status}${view.deleted ? ' (deleted)' : ''}`,
    `recipe: ${view.recipe.key} sha256 ${view.recipe.sha256}`,
  ];
  if (view.runs.length === 0) lines.push('runs: none');
  for (const run of view.runs) {
    const done = run.steps.filter((step) => ['completed', 'reused', 'skipped'].includes(step.status)).length;
    lines.push(`run ${run.number} (${run.kind}${run.resumed_from ? `, from run ${run.resumed_from}` : ''}): ${run.status}, ${done}/${run.steps.length} steps done${run.error ? ` - ${run.error}` : ''}`);
  }
  return lines;
}
