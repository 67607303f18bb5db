import type { Kysely } from 'kysely';

/**
 * Notices due (e-mails about migration runs), written by the notice reactor and emptied by the
 * sender as each one's outcome is recorded. Not a projection: a rebuild leaves it alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('migration_notice_outbox')
    .addColumn('event_id', 'uuid', (col) => col.primaryKey())
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('notice', 'jsonb', (col) => col.notNull())
    .addColumn('correlation_id', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (col) => col.notNull())
    .addColumn('last_error', 'text')
    .addColumn('queued_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('migration_notice_outbox_due').on('migration_notice_outbox').column('next_attempt_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('migration_notice_outbox').execute();
}
