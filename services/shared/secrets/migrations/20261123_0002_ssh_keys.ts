import { sql, type Kysely } from 'kysely';

/**
 * SSH private keys, sealed with the master key; never in events. The row's serial id is the key's
 * id (`sshKey-<id>`), and the unique folded name makes two keys of one name impossible even when
 * two admins save at once. Deleting a key deletes its row: nothing is left to decrypt.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ssh_keys')
    .addColumn('key_id', 'serial', (col) => col.primaryKey())
    .addColumn('name_folded', 'text', (col) => col.notNull().unique())
    .addColumn('sealed_key', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ssh_keys').execute();
}
