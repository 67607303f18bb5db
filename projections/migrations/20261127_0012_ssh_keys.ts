import type { Kysely } from 'kysely';

/** The keyring page, each project's keys and each project's pinned host keys. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ssh_keys')
    .addColumn('key_id', 'integer', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('key_type', 'text', (col) => col.notNull())
    .addColumn('bits', 'integer', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('public_key', 'text', (col) => col.notNull())
    .addColumn('origin', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('project_ssh_keys')
    .addColumn('project_slug', 'text', (col) => col.notNull())
    .addColumn('key_id', 'integer', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('added_by', 'text', (col) => col.notNull())
    .addColumn('added_at', 'timestamptz', (col) => col.notNull())
    .addColumn('key_deleted_at', 'timestamptz')
    .addPrimaryKeyConstraint('project_ssh_keys_pk', ['project_slug', 'key_id'])
    .execute();
  await db.schema.createIndex('project_ssh_keys_by_key').on('project_ssh_keys').column('key_id').execute();
  await db.schema
    .createTable('project_host_keys')
    .addColumn('project_slug', 'text', (col) => col.notNull())
    .addColumn('host', 'text', (col) => col.notNull())
    .addColumn('port', 'integer', (col) => col.notNull())
    .addColumn('keys', 'jsonb', (col) => col.notNull())
    .addColumn('pinned_by', 'text', (col) => col.notNull())
    .addColumn('pinned_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('project_host_keys_pk', ['project_slug', 'host', 'port'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('project_host_keys').execute();
  await db.schema.dropTable('project_ssh_keys').execute();
  await db.schema.dropTable('ssh_keys').execute();
}
