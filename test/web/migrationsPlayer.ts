import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { migrationDecider, type MigrationCommand } from '#services/migrations/domain/migration.decider.ts';
import { migrationStream, type Run } from '#services/migrations/domain/migration.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { isStepDone } from '#shared/workflow/jobState.ts';
import type { TestPlatform } from '#test/support/platform.ts';

/**
 * Plays the executor for the migration pages' tests, which run no executor: sends the step
 * commands of a migration's live run through its decider, as the executor does, and waits until
 * the read model shows them. Files (logs, artifacts) go where the executor puts them.
 */
export function migrationPlayer(platform: TestPlatform) {
  const readModel = platform.infra.db.withSchema('read_model');
  const metadata = () => ({ correlationId: 'test-executor', causationId: 'test-executor', actor: 'system', at: new Date().toISOString() });
  const attempts = new Map<string, string>();

  async function send(slug: string, command: MigrationCommand): Promise<void> {
    const result = await handleCommand(platform.infra.store, migrationDecider, migrationStream(slug), command, { metadata: metadata() });
    if (result.lastGlobalPosition !== undefined) await waitForPosition(readModel, 'erp_migrations', result.lastGlobalPosition);
  }

  async function lastRun(slug: string): Promise<Run> {
    const { state } = await aggregateStream(platform.infra.store, migrationDecider, migrationStream(slug));
    const run = state.status === 'none' ? undefined : state.runs.at(-1);
    if (!run) throw new Error(`${slug} has no run`);
    return run;
  }

  const player = {
    lastRun,
    /** The plan's step ids of the last run. */
    async stepIds(slug: string): Promise<string[]> {
      return (await lastRun(slug)).job.plan.map((step) => step.id);
    },
    async start(slug: string, step: string) {
      const attemptId = randomUUID();
      attempts.set(`${slug}/${step}`, attemptId);
      await send(slug, { type: 'StartStep', jobId: (await lastRun(slug)).job.jobId, step, attemptId, executor: 'test-executor' });
    },
    async complete(slug: string, step: string, facts: object = {}, durationMs = 1500) {
      await send(slug, { type: 'CompleteStep', jobId: (await lastRun(slug)).job.jobId, step, attemptId: attempts.get(`${slug}/${step}`), durationMs, facts });
    },
    async fail(slug: string, step: string, error: string) {
      await send(slug, { type: 'FailStep', jobId: (await lastRun(slug)).job.jobId, step, attemptId: attempts.get(`${slug}/${step}`), durationMs: 700, error, retryable: false, logTail: [] });
    },
    async reachGate(slug: string, step: string, message: string) {
      await send(slug, { type: 'ReachGate', jobId: (await lastRun(slug)).job.jobId, step, attemptId: attempts.get(`${slug}/${step}`), message });
    },
    /** Starts and completes the run's steps not done yet before `until`; `facts` by step. */
    async runUntil(slug: string, until: string, facts: Record<string, object> = {}) {
      const { job } = await lastRun(slug);
      for (const step of job.plan.map(({ id }) => id).filter((id) => !isStepDone(job.steps[id]))) {
        if (step === until) return;
        await player.start(slug, step);
        await player.complete(slug, step, facts[step] ?? {});
      }
    },
    /** Writes `content` at the blob `key` under FORJA_DATA_DIR, as the executor's blob store does. */
    writeBlob(key: string, content: string | Buffer) {
      const file = join(platform.config.FORJA_DATA_DIR, key);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    },
  };
  return player;
}
