import type { Kysely } from 'kysely';

/** Reports generated on demand for a run, beside the artifacts its steps made. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('migration_run_reports')
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('number', 'integer', (col) => col.notNull())
    .addColumn('artifact_id', 'bigint', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('bytes', 'bigint', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('migration_run_reports_pk', ['slug', 'artifact_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('migration_run_reports').execute();
}
