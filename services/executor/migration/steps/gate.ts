import { wait } from '#shared/workflow/stepOutcome.ts';
import type { MigrationStep } from '../migrationStepContext.ts';

/** A manual gate: the run waits until an operator approves (the step completes) or rejects (the run fails). */
export const gate: MigrationStep = async (context) => {
  const message = typeof context.step.params['message'] === 'string' ? context.step.params['message'] : 'An operator must approve this step';
  await context.log(`waiting at gate ${context.step.id}: ${message}`);
  return wait(message);
};
