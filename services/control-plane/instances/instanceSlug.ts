import { slugify } from '#services/projects/domain/project.ts';

/**
 * Slug candidates for an instance: `<project>-<name>` (the name alone when it already starts with
 * the project), then `-2`, `-3`…; at most 40 characters so database names stay short.
 */
export function* instanceSlugCandidates(projectSlug: string, name: string, max = 50): Generator<string> {
  const nameSlug = slugify(name) || 'instance';
  const joined = nameSlug === projectSlug || nameSlug.startsWith(`${projectSlug}-`) ? nameSlug : `${projectSlug}-${nameSlug}`;
  const base = joined.slice(0, 40).replace(/-+$/, '');
  yield base;
  for (let n = 2; n <= max; n++) yield `${base}-${n}`;
}
