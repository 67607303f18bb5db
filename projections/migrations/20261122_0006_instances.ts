import { sql, type Kysely } from 'kysely';

/** The instance list (filters, pages, API), the instance detail page and the steps of each job. */
export async function up(db: Kysely<any>): Promise<void> {
  const outFields = (table: ReturnType<Kysely<any>['schema']['createTable']>) =>
    table
      .addColumn('slug', 'text', (col) => col.primaryKey())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('project', 'text', (col) => col.notNull())
      .addColumn('stage', 'text', (col) => col.notNull())
      .addColumn('erp_version', 'text', (col) => col.notNull())
      .addColumn('edition', 'text', (col) => col.notNull())
      .addColumn('modules', 'jsonb', (col) => col.notNull())
      .addColumn('git_repo', 'text')
      .addColumn('branch', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('url', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'timestamptz', (col) => col.notNull())
      .addColumn('updated_at', 'timestamptz', (col) => col.notNull());
  await outFields(db.schema.createTable('instance_list')).execute();
  await sql`create index instance_list_by_project_branch on read_model.instance_list (project, branch)`.execute(db);
  await sql`create index instance_list_by_name on read_model.instance_list (lower(name))`.execute(db);
  await outFields(db.schema.createTable('instance_detail'))
    .addColumn('source', 'jsonb', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('runtime', 'text')
    .addColumn('standin', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('commit', 'text')
    .addColumn('job_id', 'text', (col) => col.notNull())
    .addColumn('job_kind', 'text', (col) => col.notNull())
    .addColumn('job_active', 'boolean', (col) => col.notNull())
    .addColumn('last_action_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('instance_job_steps')
    .addColumn('job_id', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('step', 'text', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('started_at', 'timestamptz')
    .addColumn('ended_at', 'timestamptz')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('log_tail', 'jsonb')
    .addPrimaryKeyConstraint('instance_job_steps_pk', ['job_id', 'position'])
    .execute();
  await sql`create index instance_job_steps_by_slug on read_model.instance_job_steps (slug)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('instance_job_steps').execute();
  await db.schema.dropTable('instance_detail').execute();
  await db.schema.dropTable('instance_list').execute();
}
