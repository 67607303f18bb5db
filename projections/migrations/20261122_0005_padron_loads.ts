import { sql, type Kysely } from 'kysely';

/** One row per PadronLoaded event: the loads `npm run padron -- loads` lists. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('padron_loads')
    .addColumn('event_id', 'uuid', (col) => col.primaryKey())
    .addColumn('state', 'char(1)', (col) => col.notNull())
    .addColumn('load_id', 'integer', (col) => col.notNull())
    .addColumn('file_name', 'text', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('layout', 'text', (col) => col.notNull())
    .addColumn('regimes', 'text', (col) => col.notNull())
    .addColumn('valid_from', 'date')
    .addColumn('valid_to', 'date')
    .addColumn('rows_loaded', 'integer', (col) => col.notNull())
    .addColumn('rows_removed', 'integer', (col) => col.notNull())
    .addColumn('rows_rejected', 'integer', (col) => col.notNull())
    .addColumn('rejects', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('published_at', 'timestamptz', (col) => col.notNull())
    .addColumn('global_position', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('padron_loads_by_state').on('padron_loads').columns(['state', 'published_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('padron_loads').execute();
}
