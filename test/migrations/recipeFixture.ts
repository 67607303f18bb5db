import { stringify } from 'yaml';
import { parseRecipe } from '#services/migrations/recipes/parseRecipe.ts';
import type { Recipe, RecipeProblem } from '#services/migrations/recipes/recipe.ts';

/** A small recipe that lints clean, as the plain object its YAML parses to. */
export const communityHop = (origin = 16): Record<string, any> => ({
  format: 1,
  name: `Test ${origin}.0 -> ${origin + 1}.0`,
  flavor: 'community',
  stem: `${origin}.0-${origin + 1}.0`,
  route: { origin: `${origin}.0`, destination: `${origin + 1}.0` },
  defaults: { timeout: '2h', retries: 0 },
  env: { OPENUPGRADE_TARGET_VERSION: '${migration.destination}' },
  preflight: [
    { id: 'source_version', kind: 'check', sql: "select latest_version from ir_module_module where name = 'base'", expect: { matches: `^${origin}\\.0\\.` } },
    { id: 'coverage', kind: 'modules', allow_missing: ['theme_*'] },
  ],
  steps: [
    { id: 'fetch', kind: 'fetch' },
    { id: 'restore', kind: 'restore' },
    { id: 'backup_origin', kind: 'backup' },
    { id: 'approve', kind: 'gate', message: 'Approve ${migration.slug}', when: '${migration.purpose} == production' },
    {
      id: 'upgrade',
      kind: 'erp',
      version: 'destination',
      timeout: '8h',
      retries: 1,
      args: ['--update=all', '--stop-after-init', '--load=base,web,openupgrade_framework', '--upgrade-path=${paths.upgrade}'],
    },
    { id: 'verify', kind: 'check', sql: "select name from ir_module_module where state = 'installed' and latest_version not like '${hop.destination}.%'" },
    { id: 'preview', kind: 'instance' },
    { id: 'report', kind: 'report' },
  ],
});

/** The same hop for enterprise: the upgrade service instead of OpenUpgrade. */
export function enterpriseHop(origin = 16): Record<string, any> {
  const doc = communityHop(origin);
  doc.flavor = 'enterprise';
  delete doc.env;
  doc.steps[4] = { id: 'upgrade', kind: 'upgrade_service', timeout: '4h' };
  return doc;
}

export const yamlOf = (doc: unknown): string => stringify(doc);

/** Every finding, errors first. */
export function findingsOf(doc: unknown): RecipeProblem[] {
  const parsed = parseRecipe(typeof doc === 'string' ? doc : yamlOf(doc));
  return [...('errors' in parsed ? parsed.errors : []), ...parsed.warnings];
}

/** The parsed recipe; fails the test with the findings when it does not parse. */
export function recipeOf(doc: unknown): Recipe {
  const parsed = parseRecipe(typeof doc === 'string' ? doc : yamlOf(doc));
  if ('errors' in parsed) throw new Error(`recipe does not parse: ${JSON.stringify(parsed.errors)}`);
  return parsed.recipe;
}
