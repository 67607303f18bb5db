import type { MigrationStep } from '#services/executor/migration/migrationStepContext.ts';
import { migrationSteps as shippedSteps, upgradePathFor } from '#services/executor/migration/steps/registry.ts';

export { upgradePathFor };

/**
 * The shipped migration steps with one fault hook: the step of the plan that PAUSE_AFTER_STEP names
 * (a step id), once it has done its work and before the runner records its completion, tells the
 * parent process and hangs, so that the parent can SIGKILL the executor at the worst moment.
 */
export function migrationSteps(...args: Parameters<typeof shippedSteps>): Readonly<Record<string, MigrationStep>> {
  const steps = shippedSteps(...args);
  const pauseAfter = process.env['PAUSE_AFTER_STEP'];
  if (!pauseAfter) return steps;
  const pausing = (step: MigrationStep): MigrationStep => async (context) => {
    const outcome = await step(context);
    if (context.step.id !== pauseAfter || outcome.outcome !== 'done') return outcome;
    process.send?.({ paused: pauseAfter });
    return new Promise<never>(() => undefined);
  };
  return Object.fromEntries(Object.entries(steps).map(([kind, step]) => [kind, pausing(step)]));
}
