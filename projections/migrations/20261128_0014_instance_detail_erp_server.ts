import { sql, type Kysely } from 'kysely';

/**
 * instance_detail learns whether a development instance asked for demo data, and, when its ERP runs
 * workers, the gevent port it keeps and the URL the ERP router sends `/websocket` to. Replayed
 * from the instance streams like 0007, so older instances get their facts from their events.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('instance_detail')
    .addColumn('demo_data', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('gevent_port', 'integer')
    .addColumn('gevent_url', 'text')
    .execute();
  await sql`delete from read_model.instance_detail`.execute(db);
  await sql`update read_model.checkpoints set position = 0, updated_at = now() where name = 'instance_detail'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('instance_detail').dropColumn('demo_data').dropColumn('gevent_port').dropColumn('gevent_url').execute();
}
