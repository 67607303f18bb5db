import type { JobState } from '#shared/workflow/jobState.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';

/** What reuse needs of a run: its job (plan and step states). */
type Run = { job: JobState };

/**
 * Resync: what differs between the plan a migration's recipe snapshot makes and the plan the
 * current recipe makes, and what a failed run's resume may still reuse once the migration adopts
 * the current recipe. Pure: the service computes both when asked, the decider records them.
 */

export type StepChange = 'added' | 'removed' | 'changed' | 'same';

export interface PlanDiffRow {
  id: string;
  kind: string;
  change: StepChange;
  /** For `changed`: which of the step's fields differ (`kind`, `timeoutS`, `retries`, `params.<name>`). */
  fields: string[];
}

/** Kinds that change the working database: the checkpoint snapshot holds what they did. */
const CHANGES_DATABASE: ReadonlySet<string> = new Set(['restore', 'sql', 'uninstall', 'erp', 'upgrade_service']);

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The fields of a step that differ between two versions of it. */
export function changedFields(before: PlannedStep, after: PlannedStep): string[] {
  const fields: string[] = [];
  if (before.type !== after.type) fields.push('kind');
  if (!same(before.timeoutS, after.timeoutS)) fields.push('timeoutS');
  if (!same(before.retries, after.retries)) fields.push('retries');
  const names = [...new Set([...Object.keys(before.params), ...Object.keys(after.params)])].sort();
  for (const name of names) if (!same(before.params[name], after.params[name])) fields.push(`params.${name}`);
  return fields;
}

/**
 * Step by step, the new plan against the old: every step of the new plan in its order (added,
 * changed or the same), with each removed step placed after the step that preceded it before.
 */
export function planDiff(before: readonly PlannedStep[], after: readonly PlannedStep[]): PlanDiffRow[] {
  const old = new Map(before.map((step) => [step.id, step]));
  const rows: PlanDiffRow[] = after.map((step) => {
    const was = old.get(step.id);
    if (!was) return { id: step.id, kind: step.type, change: 'added', fields: [] };
    const fields = changedFields(was, step);
    return { id: step.id, kind: step.type, change: fields.length > 0 ? 'changed' : 'same', fields };
  });
  const kept = new Set(after.map((step) => step.id));
  before.forEach((step, index) => {
    if (kept.has(step.id)) return;
    const previous = before.slice(0, index).reverse().find((candidate) => rows.some((row) => row.id === candidate.id));
    const at = previous ? rows.findIndex((row) => row.id === previous.id) + 1 : 0;
    // After any removed rows already placed there, so removed steps keep their order.
    let position = at;
    while (rows[position]?.change === 'removed') position++;
    rows.splice(position, 0, { id: step.id, kind: step.type, change: 'removed', fields: [] });
  });
  return rows;
}

/** What the next resume keeps of a failed run after adopting a new plan. */
export interface AdoptedReuse {
  /** Step ids whose finished work the resume reuses (a prefix of the new plan). */
  reuse: string[];
  /** The last reused step: where the resume starts after; null when it starts from the beginning. */
  checkpoint: string | null;
  /**
   * The last run's checkpoint snapshot holds database changes of steps the new plan redoes or no
   * longer has: the resume restores the input again rather than build on it.
   */
  restoreAgain: boolean;
}

const finished = (run: Run, id: string): boolean => ['completed', 'reused', 'skipped'].includes(run.job.steps[id]?.status ?? '');

/**
 * A changed or new step before the failed run's checkpoint moves the checkpoint back to it: the
 * resume reuses the longest prefix of the new plan that the failed run finished with the same
 * definition, in the same order. When the failed run had finished a database-changing step past
 * that prefix, its snapshot is ahead of the new checkpoint: only what comes before `restore` stays
 * reused (the download is not repeated) and the database is restored again.
 */
export function reuseAfterAdopt(last: Run | undefined, after: readonly PlannedStep[]): AdoptedReuse {
  if (!last || last.job.status !== 'failed') return { reuse: [], checkpoint: null, restoreAgain: false };
  const before = last.job.plan;
  const prefix: string[] = [];
  for (const [index, step] of after.entries()) {
    const was = before[index];
    if (!was || was.id !== step.id || changedFields(was, step).length > 0 || !finished(last, step.id)) break;
    prefix.push(step.id);
  }
  const beyond = before.filter((step) => !prefix.includes(step.id) && CHANGES_DATABASE.has(step.type) && finished(last, step.id));
  if (beyond.length === 0) return { reuse: prefix, checkpoint: prefix.at(-1) ?? null, restoreAgain: false };
  const restoreAt = after.findIndex((step) => step.type === 'restore');
  const reuse = prefix.filter((id) => after.findIndex((step) => step.id === id) < (restoreAt < 0 ? 0 : restoreAt));
  return { reuse, checkpoint: reuse.at(-1) ?? null, restoreAgain: true };
}
