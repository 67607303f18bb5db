import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { migrationNoticeStream, noticeOutcomeId, type MigrationNoticeEvent } from '#services/notifications/noticeEvents.ts';

/** Whether the notice about `eventId` already has an outcome (sent or failed) on its stream. */
export async function noticeOutcomeRecorded(store: EventStore, slug: string, eventId: string): Promise<boolean> {
  const { events } = await store.readStream<MigrationNoticeEvent>(migrationNoticeStream(slug));
  return events.some((event) => event.data.eventId === eventId);
}

/**
 * Appends the outcome under the id derived from the run event's: appending it again (a sender
 * that crashed before taking the notice off its queue) is a no-op, not a second outcome. Its
 * metadata ties it to the run event, as any event the platform decides by itself.
 */
export async function recordNoticeOutcome(store: EventStore, outcome: MigrationNoticeEvent, correlationId: string, at: Date): Promise<void> {
  const { eventId, slug } = outcome.data;
  const metadata: EventMetadata = { correlationId, causationId: eventId, actor: 'system', at: at.toISOString(), via: 'migration-notices' };
  await store.appendToStream(migrationNoticeStream(slug), [{ id: noticeOutcomeId(eventId), type: outcome.type, data: outcome.data, metadata }], { expectedVersion: 'any' });
}
