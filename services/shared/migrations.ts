import { Migrator, type Kysely, type Migration } from 'kysely';

/**
 * Brings one schema up to date with its migrations. Each schema (`event_store`, `read_model`,
 * `secrets`) has its own migrator and bookkeeping table, so they evolve independently. Kysely
 * serializes concurrent migrators with a lock, so every process may call this at start-up.
 */
export async function migrateSchema(db: Kysely<unknown>, schema: string, migrations: Record<string, Migration>): Promise<void> {
  const migrator = new Migrator({
    // Migrations name bare tables; the schema plugin puts them in `schema`.
    db: db.withSchema(schema),
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableSchema: schema,
    // Work on parallel branches adds migrations whose names interleave; each is independent.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} of schema ${schema} failed: ${(error as Error).message}`, { cause: error });
  }
}
