import { done } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStep } from '../migrationStepContext.ts';
import { restoreCheckpoint, takeCheckpoint } from './checkpoint.ts';
import { stringParam } from './stepParams.ts';

/**
 * Runs `params.sql` on the working database exactly once for this run (`runOnce`, keyed
 * `<run number>:<step id>`): the change and its marker commit together, so an executor lost
 * between COMMIT and recording the completion does not apply it twice. A dirty attempt first
 * rebuilds the database from the last checkpoint; a success (or a marker found) takes a new one.
 */
export const sql: MigrationStep = async (context) => {
  const text = stringParam(context.step, 'sql');
  const work = context.migration.workingDatabase;
  if (context.dirty) await restoreCheckpoint(context);
  const key = `${context.run.number}:${context.step.id}`;
  const { ran } = await context.databases.runOnce(work, key, text);
  await context.log(ran ? `sql ${context.step.id}: applied to ${work}` : `sql ${context.step.id}: already applied to ${work} (marker ${key}), not run again`);
  await takeCheckpoint(context);
  return done(ran ? {} : { skippedAsDone: true });
};
