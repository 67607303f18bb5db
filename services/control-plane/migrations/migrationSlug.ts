import { slugify } from '#services/projects/domain/project.ts';

/** Slug candidates for a migration: its name slugged, then `-2`, `-3`…; at most 40 characters so database names stay short. */
export function* migrationSlugCandidates(name: string, max = 50): Generator<string> {
  const base = (slugify(name) || 'migration').slice(0, 40).replace(/-+$/, '');
  yield base;
  for (let n = 2; n <= max; n++) yield `${base}-${n}`;
}

/** The working database of a migration: built once at creation, kept when the migration is edited. */
export const workingDatabaseOf = (slug: string): string => `forja_mig_${slug.replaceAll('-', '_')}`;
