import { sql, type Kysely } from 'kysely';

/**
 * instance_detail learns the addons path the last build computed (a jsonb array of folders, null
 * before a build recorded one). Rows already there learn it from their events: the table is
 * emptied and its checkpoint reset, and the projector replays the instance streams.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('instance_detail').addColumn('addons_path', 'jsonb').execute();
  await sql`delete from read_model.instance_detail`.execute(db);
  await sql`update read_model.checkpoints set position = 0, updated_at = now() where name = 'instance_detail'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('instance_detail').dropColumn('addons_path').execute();
}
