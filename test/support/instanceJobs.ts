import { randomUUID } from 'node:crypto';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { instanceDecider, type InstanceCommand } from '#services/instances/domain/instance.decider.ts';
import { instanceStream, type LiveInstance, type StepFacts } from '#services/instances/domain/instance.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { isStepDone } from '#shared/workflow/jobState.ts';
import type { TestPlatform } from './platform.ts';

const INSTANCE_READ_MODELS = ['instance_list', 'instance_detail', 'instance_job_steps'];

/**
 * Plays the executor for web tests, which run no executor: sends the step commands of an
 * instance's current job through its decider, as the executor does, and waits until the instance
 * read models show them.
 */
export function jobPlayer(platform: TestPlatform) {
  const readModel = platform.infra.db.withSchema('read_model');
  const metadata = () => ({ correlationId: 'test-executor', causationId: 'test-executor', actor: 'system', at: new Date().toISOString() });

  async function send(slug: string, command: InstanceCommand): Promise<void> {
    const result = await handleCommand(platform.infra.store, instanceDecider, instanceStream(slug), command, { metadata: metadata() });
    if (result.lastGlobalPosition === undefined) return;
    for (const projection of INSTANCE_READ_MODELS) await waitForPosition(readModel, projection, result.lastGlobalPosition);
  }

  async function job(slug: string): Promise<LiveInstance['job']> {
    const { state } = await aggregateStream(platform.infra.store, instanceDecider, instanceStream(slug));
    if (state.status === 'none') throw new Error(`no instance ${slug}`);
    return state.job;
  }

  /** The current job and the attempt id its running `step` was started with. */
  async function attempt(slug: string, step: string) {
    const current = await job(slug);
    const state = current.steps[step];
    return { jobId: current.jobId, attemptId: state?.status === 'running' ? state.attemptId : undefined };
  }

  const player = {
    job,
    async start(slug: string, step: string) {
      await send(slug, { type: 'StartStep', jobId: (await job(slug)).jobId, step, attemptId: randomUUID(), executor: 'test-executor' });
    },
    async complete(slug: string, step: string, facts: StepFacts = {}, durationMs = 1200) {
      await send(slug, { type: 'CompleteStep', ...(await attempt(slug, step)), step, durationMs, facts });
    },
    async fail(slug: string, step: string, error: string, logTail: string[] = [], durationMs = 800) {
      await send(slug, { type: 'FailStep', ...(await attempt(slug, step)), step, durationMs, error, retryable: false, logTail });
    },
    /** A push to the instance's branch announcing `headCommit`, as the push hook sends it: deferred while a job runs. */
    async push(slug: string, headCommit: string) {
      await send(slug, { type: 'RequestAction', action: 'rebuild', jobId: randomUUID(), reason: 'push', headCommit });
    },
    /** Starts and completes the current job's steps up to (not including) `until`, or all of them; `facts` by step. */
    async run(slug: string, facts: Record<string, StepFacts> = {}, until?: string) {
      const current = await job(slug);
      for (const step of current.plan.map(({ id }) => id).filter((id) => !isStepDone(current.steps[id]))) {
        if (step === until) return;
        await player.start(slug, step);
        await player.complete(slug, step, facts[step] ?? {});
      }
    },
  };
  return player;
}

/** What the build steps report for an instance on the stand-in, reachable at `url`. */
export const standinFacts = (url: string): Record<string, StepFacts> => ({
  fetch_code: { commit: '3f2a9c1d4e5b6a7980112233445566778899aabb' },
  build: { runtime: 'process', standin: true },
  start: { url },
});
