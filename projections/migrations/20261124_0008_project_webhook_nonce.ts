import type { Kysely } from 'kysely';

/**
 * The projects' push hook nonce (their token is HMAC-SHA256 of slug and nonce). Projects created
 * before nonces existed have none in their events either, so null is what a replay would give:
 * no rebuild needed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('project_detail').addColumn('webhook_nonce', 'text').execute();
  await db.schema.alterTable('project_list').addColumn('webhook_nonce', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('project_list').dropColumn('webhook_nonce').execute();
  await db.schema.alterTable('project_detail').dropColumn('webhook_nonce').execute();
}
