import { slugify } from '#services/projects/domain/project.ts';
import { checkpointDatabaseName, workingDatabaseName } from '#shared/instanceDatabase/reservedNames.ts';

/** Slug candidates for a migration: its name slugged, then `-2`, `-3`…; at most 40 characters so database names stay short. */
export function* migrationSlugCandidates(name: string, max = 50): Generator<string> {
  const base = (slugify(name) || 'migration').slice(0, 40).replace(/-+$/, '');
  yield base;
  for (let n = 2; n <= max; n++) yield `${base}-${n}`;
}

/**
 * The working database of a migration and its checkpoint: named once at creation and recorded in
 * MigrationCreated, kept when the migration is edited (see reservedNames.ts for why no instance's
 * database can have these names).
 */
export const migrationDatabasesOf = (slug: string): { workingDatabase: string; checkpointDatabase: string } => ({
  workingDatabase: workingDatabaseName(slug),
  checkpointDatabase: checkpointDatabaseName(slug),
});
