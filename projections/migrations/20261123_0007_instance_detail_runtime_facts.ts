import { sql, type Kysely } from 'kysely';

/**
 * instance_detail learns whether an instance was provisioned (the action rules need it), its
 * stable ERP port, the branch head last seen and a rebuild deferred by a push. Existing rows cannot
 * know these without the events, so the table is emptied and its checkpoint reset: the projector
 * replays the instance streams into the new shape (a rebuild, not an in-place guess).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('instance_detail')
    .addColumn('provisioned', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('port', 'integer')
    .addColumn('branch_head', 'text')
    .addColumn('rebuild_pending', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute();
  await sql`delete from read_model.instance_detail`.execute(db);
  await sql`update read_model.checkpoints set position = 0, updated_at = now() where name = 'instance_detail'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('instance_detail').dropColumn('provisioned').dropColumn('port').dropColumn('branch_head').dropColumn('rebuild_pending').execute();
}
