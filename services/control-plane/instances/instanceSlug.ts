import { slugify } from '#services/projects/domain/project.ts';
import { reservedInstanceSlug } from '#shared/instanceDatabase/reservedNames.ts';
import { InstanceInputError } from './instanceInputError.ts';

/**
 * Slug candidates for an instance: `<project>-<name>` (the name alone when it already starts with
 * the project), then `-2`, `-3`…; at most 40 characters so database names stay short.
 * @throws InstanceInputError (a 422 on `name`) when the slug is one kept for Forja's own work:
 * its database or runtime name would be a migration's (reservedNames.ts).
 */
export function* instanceSlugCandidates(projectSlug: string, name: string, max = 50): Generator<string> {
  const nameSlug = slugify(name) || 'instance';
  const joined = nameSlug === projectSlug || nameSlug.startsWith(`${projectSlug}-`) ? nameSlug : `${projectSlug}-${nameSlug}`;
  const base = joined.slice(0, 40).replace(/-+$/, '');
  const reserved = reservedInstanceSlug(base);
  if (reserved) throw new InstanceInputError('name', `this instance's slug would be ${base}, and ${reserved}: choose another project or name`);
  yield base;
  for (let n = 2; n <= max; n++) yield `${base}-${n}`;
}
