import { sql, type Kysely } from 'kysely';

/** Password hashes, sealed with the master key; never in events. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_passwords')
    .addColumn('user_id', 'text', (col) => col.primaryKey())
    .addColumn('sealed_hash', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_passwords').execute();
}
