import { STEPS } from '#services/executor/jobs/steps.ts';
import type { Step } from '#services/executor/jobs/stepEnvironment.ts';

/**
 * The real executor (services/executor/main.ts) for the kill test, with one fault hook: after the
 * step named in PAUSE_AFTER_STEP has done its work, and before its completion is recorded, it
 * tells the parent and hangs, so the parent can SIGKILL it at the worst moment.
 */
const pauseAfter = process.env['PAUSE_AFTER_STEP'];
const steps = STEPS as Record<string, Step>;
const original = steps[pauseAfter ?? ''];
if (pauseAfter && original) {
  steps[pauseAfter] = async (env) => {
    const facts = await original(env);
    process.send?.({ paused: pauseAfter });
    return new Promise(() => facts);
  };
}
await import('#services/executor/main.ts');
