import { sql, type Kysely } from 'kysely';

/**
 * instance_detail learns which neutralization a copy that is not production got (the ERP's
 * `neutralize` on 16.0+, or Forja's SQL and why). As in 0007, the rows are emptied and the
 * checkpoint reset, so the projector replays the instance streams into the new shape.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('instance_detail').addColumn('neutralization', 'text').execute();
  await sql`delete from read_model.instance_detail`.execute(db);
  await sql`update read_model.checkpoints set position = 0, updated_at = now() where name = 'instance_detail'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('instance_detail').dropColumn('neutralization').execute();
}
