import type { MigrationNotice } from '#services/notifications/migrationNotice.ts';
import type { ReadModel } from '../readModel.ts';

/** Queues a notice, due now; a notice already queued (the reactor re-ran a batch) stays as it is. */
export async function queueNotice(db: ReadModel, notice: MigrationNotice, correlationId: string, now: Date): Promise<void> {
  await db
    .insertInto('migration_notice_outbox')
    .values({ event_id: notice.eventId, slug: notice.slug, notice: JSON.stringify(notice), correlation_id: correlationId, attempts: 0, next_attempt_at: now, queued_at: now })
    .onConflict((oc) => oc.column('event_id').doNothing())
    .execute();
}

/** Notices whose next attempt is due, the longest waiting first. */
export async function dueNotices(db: ReadModel, now: Date, limit: number) {
  return db.selectFrom('migration_notice_outbox').selectAll().where('next_attempt_at', '<=', now).orderBy('next_attempt_at').orderBy('queued_at').limit(limit).execute();
}

/** When the next queued notice is due, or null when none is queued. */
export async function nextNoticeDueAt(db: ReadModel): Promise<Date | null> {
  const row = await db.selectFrom('migration_notice_outbox').select((eb) => eb.fn.min('next_attempt_at').as('next')).executeTakeFirst();
  return row?.next ? new Date(row.next) : null;
}

export async function postponeNotice(db: ReadModel, eventId: string, attempts: number, nextAttemptAt: Date, error: string): Promise<void> {
  await db.updateTable('migration_notice_outbox').set({ attempts, next_attempt_at: nextAttemptAt, last_error: error }).where('event_id', '=', eventId).execute();
}

/** Takes a notice off the queue once its outcome is an event. */
export async function removeNotice(db: ReadModel, eventId: string): Promise<void> {
  await db.deleteFrom('migration_notice_outbox').where('event_id', '=', eventId).execute();
}

/** Every queued notice, for tests and status. */
export async function queuedNotices(db: ReadModel) {
  return db.selectFrom('migration_notice_outbox').selectAll().orderBy('queued_at').execute();
}
