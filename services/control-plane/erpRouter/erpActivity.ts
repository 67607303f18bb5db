import { randomUUID } from 'node:crypto';
import { DomainError } from '#shared/decider/decider.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { causedByLast } from '#shared/decider/systemMetadata.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { instanceDecider, type InstanceCommand } from '#services/instances/domain/instance.decider.ts';
import { instanceStream } from '#services/instances/domain/instance.ts';

/** How often one instance's visits are recorded at most: sleep is measured in hours, a request per page is far too many events. */
export const VISIT_EVERY_MS = 5 * 60 * 1000;

/**
 * The router's commands, decided as `system` by the instance decider: a start that wakes a
 * sleeping instance, and visits (activity for the idle sweep), throttled per instance in memory.
 */
export function erpActivity(store: EventStore, logger: Logger, { visitEveryMs = VISIT_EVERY_MS, now = () => Date.now() } = {}) {
  const lastVisit = new Map<string, number>();
  const run = (slug: string, command: InstanceCommand) => handleCommand(store, instanceDecider, instanceStream(slug), command, { metadata: causedByLast('erp-router') });

  return {
    /**
     * Asks for a `start` (reason `user`: a person's request woke it, so it counts as activity).
     * A refusal means another request woke it first, or its state changed: the waiting page shows what follows.
     */
    async wake(slug: string): Promise<void> {
      try {
        await run(slug, { type: 'RequestAction', action: 'start', jobId: randomUUID(), reason: 'user' });
        logger.info({ slug }, 'woke a sleeping instance for a request');
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    },
    /** Records a visit unless one was recorded in the last `visitEveryMs`; never holds the request up. */
    visit(slug: string): void {
      const at = now();
      if (at - (lastVisit.get(slug) ?? -Infinity) < visitEveryMs) return;
      lastVisit.set(slug, at);
      run(slug, { type: 'RecordVisit' }).catch((error: unknown) => {
        lastVisit.delete(slug);
        logger.warn({ err: error, slug }, 'could not record an ERP visit');
      });
    },
  };
}
