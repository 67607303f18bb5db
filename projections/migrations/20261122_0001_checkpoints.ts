import { sql, type Kysely } from 'kysely';

/** Where each projector and reactor has got to in the global feed. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('checkpoints')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('position', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('checkpoints').execute();
}
