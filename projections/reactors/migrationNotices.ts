import type { EventStore, RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { migrationStream, type MigrationEvent } from '#services/migrations/domain/migration.ts';
import { NOTICE_EVENT_TYPES, noticeFor } from '#services/notifications/migrationNotice.ts';
import { noticeOutcomeRecorded } from '../notices/noticeOutcomes.ts';
import { queueNotice } from '../notices/noticeOutbox.ts';
import type { ReadModel } from '../readModel.ts';
import type { Reactor } from '../runner/projection.ts';

export interface MigrationNoticesDeps {
  store: EventStore;
  db: ReadModel;
  logger: Logger;
  /** Run events older than this get no notice: a reactor new to an old event store would mail every past run. */
  maxAgeMs: number;
  /** Tells the sender a notice is due, so it does not wait for its next poll. */
  wake(): void;
}

/**
 * Queues an e-mail for every run that succeeds, fails or waits at a gate, for the migration's
 * notify-to list. It only writes the queue (the sender delivers, retries and records the outcome),
 * so a slow or dead SMTP server never holds up this reactor, another projection, or a run.
 * At-least-once like every reactor: a re-run batch finds the notice queued (same event id) or its
 * outcome already on `migrationNotice-<slug>`, and queues nothing twice.
 */
export function migrationNoticesReactor(deps: MigrationNoticesDeps): Reactor {
  return {
    name: 'migration_notices',
    eventTypes: NOTICE_EVENT_TYPES,
    async handle(events) {
      const histories = new Map<string, RecordedEvent<MigrationEvent>[]>();
      let queued = 0;
      for (const event of events) {
        const { slug } = event.data as { slug: string };
        const age = Date.now() - event.recordedAt.getTime();
        if (age > deps.maxAgeMs) {
          deps.logger.info({ slug, event: event.type, eventId: event.id, recordedAt: event.recordedAt }, 'no notice: the run event is older than FORJA_NOTICE_MAX_AGE_H');
          continue;
        }
        let history = histories.get(slug);
        if (!history) {
          history = (await deps.store.readStream<MigrationEvent>(migrationStream(slug))).events;
          histories.set(slug, history);
        }
        // The migration as it was at the event: the notify-to list it had then.
        const upTo = history.filter((recorded) => recorded.version <= event.version).map(({ type, data }) => ({ type, data }) as MigrationEvent);
        const notice = noticeFor(event, upTo);
        if (!notice) continue;
        if (await noticeOutcomeRecorded(deps.store, slug, event.id)) continue;
        await queueNotice(deps.db, notice, event.metadata.correlationId, new Date());
        queued += 1;
      }
      if (queued > 0) deps.wake();
    },
  };
}
