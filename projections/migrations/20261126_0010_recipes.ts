import type { Kysely } from 'kysely';

/** The migration recipes' read models: current versions, every version, and which migrations took which. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('recipes')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('flavor', 'text', (col) => col.notNull())
    .addColumn('stem', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('text', 'text', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('origin', 'text', (col) => col.notNull())
    .addColumn('errors', 'jsonb', (col) => col.notNull())
    .addColumn('warnings', 'jsonb', (col) => col.notNull())
    .addColumn('saved_by', 'text', (col) => col.notNull())
    .addColumn('saved_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('recipe_versions')
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('origin', 'text', (col) => col.notNull())
    .addColumn('saved_by', 'text', (col) => col.notNull())
    .addColumn('saved_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('recipe_versions_pk', ['key', 'version'])
    .execute();
  await db.schema
    .createTable('recipe_usage')
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('recipe_usage_pk', ['slug', 'key'])
    .execute();
  await db.schema.createIndex('recipe_usage_by_key').on('recipe_usage').columns(['key', 'sha256']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recipe_usage').execute();
  await db.schema.dropTable('recipe_versions').execute();
  await db.schema.dropTable('recipes').execute();
}
