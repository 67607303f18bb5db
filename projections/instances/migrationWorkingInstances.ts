import { sql } from 'kysely';
import type { ReadModel } from '../readModel.ts';

export interface MigrationWorkingInstance {
  slug: string;
  run: number;
  status: string;
}

/**
 * The instances a migration's runs started on their result (source `migration`, as the instance's
 * own events record it), not destroyed, by run: the migration and run pages link to them.
 */
export async function migrationWorkingInstances(db: ReadModel, migration: string): Promise<MigrationWorkingInstance[]> {
  const rows = await db
    .selectFrom('instance_detail')
    .select(['slug', 'status', sql<number>`(source->>'run')::int`.as('run')])
    .where(sql<string>`source->>'kind'`, '=', 'migration')
    .where(sql<string>`source->>'migration'`, '=', migration)
    .where('status', '!=', 'destroyed')
    .orderBy('slug')
    .execute();
  return rows.map((row) => ({ slug: row.slug, run: row.run, status: row.status }));
}
