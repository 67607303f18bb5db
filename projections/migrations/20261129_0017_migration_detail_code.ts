import type { Kysely } from 'kysely';

/**
 * migration_detail learns the project and the per-version code of a migration (issue 26). No
 * replay: every migration created before had neither, which the defaults say.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('migration_detail')
    .addColumn('project', 'text')
    .addColumn('code', 'jsonb', (col) => col.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('migration_detail').dropColumn('code').dropColumn('project').execute();
}
