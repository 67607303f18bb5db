import { sql, type Kysely } from 'kysely';

/** The project list (searchable by name) and the project detail page. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_list')
    .addColumn('slug', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('git_repo', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await sql`create index project_list_by_name on read_model.project_list (lower(name))`.execute(db);
  await db.schema
    .createTable('project_detail')
    .addColumn('slug', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('git_repo', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull())
    .addColumn('updated_by', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('project_detail').execute();
  await db.schema.dropTable('project_list').execute();
}
