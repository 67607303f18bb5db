import { randomUUID } from 'node:crypto';
import { idleDevelopmentInstances } from '#projections/instances/instanceDetail.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { causedByLast } from '#shared/decider/systemMetadata.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instanceStream } from '#services/instances/domain/instance.ts';

/**
 * Puts running development instances with no action for `sleepAfterMs` to sleep (a `sleep` job
 * stops the ERP; `start` wakes it). Several executors may sweep at once: the decider refuses the
 * second request because the instance is then busy.
 */
export function startIdleSweep(options: { store: EventStore; readModel: ReadModel; sleepAfterMs: number; logger: Logger; everyMs?: number }): { stop(): void; sweep(): Promise<string[]> } {
  const sweep = async (): Promise<string[]> => {
    const idle = await idleDevelopmentInstances(options.readModel, new Date(Date.now() - options.sleepAfterMs));
    const slept: string[] = [];
    for (const { slug } of idle) {
      try {
        await handleCommand(options.store, instanceDecider, instanceStream(slug), { type: 'RequestAction', action: 'sleep', jobId: randomUUID(), reason: 'idle' }, { metadata: causedByLast('idle-sweep') });
        slept.push(slug);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
    if (slept.length) options.logger.info({ slept }, 'idle development instances put to sleep');
    return slept;
  };
  const everyMs = options.everyMs ?? Math.min(60_000, Math.max(1000, options.sleepAfterMs / 4));
  const timer = setInterval(() => void sweep().catch((error: unknown) => options.logger.warn({ err: error }, 'idle sweep failed')), everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer), sweep };
}
