import { type Kysely } from 'kysely';

/** One row per stream: how far it has got and what happened last. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stream_activity')
    .addColumn('stream_id', 'text', (col) => col.primaryKey())
    .addColumn('category', 'text', (col) => col.notNull())
    .addColumn('version', 'bigint', (col) => col.notNull())
    .addColumn('last_event_type', 'text', (col) => col.notNull())
    .addColumn('last_event_at', 'timestamptz', (col) => col.notNull())
    .addColumn('last_actor', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('stream_activity_by_category').on('stream_activity').columns(['category', 'last_event_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stream_activity').execute();
}
