import type { JSONColumnType } from 'kysely';
import type { MigrationNotice } from '#services/notifications/migrationNotice.ts';

/** Notices due: one row per run event worth an e-mail, until its outcome is recorded as an event. */
export interface MigrationNoticeOutboxTable {
  /** The run event's id: a replayed reactor queues nothing twice. */
  event_id: string;
  slug: string;
  /** jsonb: written as a JSON string, read back as the notice. */
  notice: JSONColumnType<MigrationNotice>;
  /** The run event's correlation, kept by the outcome event. */
  correlation_id: string;
  /** Attempts made so far. */
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  queued_at: Date;
}

export interface MigrationNoticeOutboxDb {
  migration_notice_outbox: MigrationNoticeOutboxTable;
}
