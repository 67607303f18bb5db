import { sql, type Kysely } from 'kysely';

/** The migrations' read models: one row per migration, its runs, and the steps of each run. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('migration_detail')
    .addColumn('slug', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('origin', 'text', (col) => col.notNull())
    .addColumn('destination', 'text', (col) => col.notNull())
    .addColumn('flavor', 'text', (col) => col.notNull())
    .addColumn('engine', 'text', (col) => col.notNull())
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('contract_hint', 'text')
    .addColumn('notify_to', 'jsonb', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('recipe_key', 'text', (col) => col.notNull())
    .addColumn('recipe_sha256', 'text', (col) => col.notNull())
    .addColumn('working_database', 'text', (col) => col.notNull())
    .addColumn('input', 'jsonb', (col) => col.notNull())
    .addColumn('last_run_number', 'integer')
    .addColumn('last_run_status', 'text')
    .addColumn('preflight_failed', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await sql`create index migration_detail_by_update on read_model.migration_detail (updated_at desc, slug)`.execute(db);
  await db.schema
    .createTable('migration_runs')
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('number', 'integer', (col) => col.notNull())
    .addColumn('job_id', 'text', (col) => col.notNull().unique())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('checkpoint', 'text')
    .addColumn('resumed_from', 'integer')
    .addColumn('skip_preflight', 'boolean', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('requested_by', 'text', (col) => col.notNull())
    .addColumn('error', 'text')
    .addColumn('started_at', 'timestamptz')
    .addColumn('ended_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('migration_runs_pk', ['slug', 'number'])
    .execute();
  await db.schema
    .createTable('migration_run_steps')
    .addColumn('job_id', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('number', 'integer', (col) => col.notNull())
    .addColumn('step_id', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('phase', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('started_at', 'timestamptz')
    .addColumn('ended_at', 'timestamptz')
    .addColumn('duration_ms', 'bigint')
    .addColumn('error', 'text')
    .addColumn('warnings', 'jsonb', (col) => col.notNull())
    .addColumn('gate', 'text')
    .addColumn('facts', 'jsonb')
    .addPrimaryKeyConstraint('migration_run_steps_pk', ['job_id', 'position'])
    .execute();
  await sql`create index migration_run_steps_by_slug on read_model.migration_run_steps (slug)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('migration_run_steps').execute();
  await db.schema.dropTable('migration_runs').execute();
  await db.schema.dropTable('migration_detail').execute();
}
