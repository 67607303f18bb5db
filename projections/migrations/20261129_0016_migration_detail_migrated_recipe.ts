import { sql, type Kysely } from 'kysely';

/**
 * migration_detail learns which recipe snapshot a migrated migration's successful run followed:
 * *Run* is refused until a resync changes it. As in 0015, the projection's rows are emptied and
 * its checkpoint reset, so the projector replays the migration streams into the new shape.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('migration_detail').addColumn('migrated_recipe_sha256', 'text').execute();
  for (const table of ['migration_run_reports', 'migration_run_steps', 'migration_runs', 'migration_detail']) {
    await sql`delete from ${sql.table(`read_model.${table}`)}`.execute(db);
  }
  await sql`update read_model.checkpoints set position = 0, updated_at = now() where name = 'erp_migrations'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('migration_detail').dropColumn('migrated_recipe_sha256').execute();
}
