import { chainRecipes, materializePlan, parseRecipe, recipeDigest, type MigrationFacts } from '#services/migrations/recipes/index.ts';
import { loadRecipeFiles, type RecipeFile } from '#services/migrations/recipes/recipeFiles.ts';
import { joinHops, splitHops } from '#services/migrations/recipes/snapshotHops.ts';
import { majorOf, type Engine as RecipeEngine, type Flavor, type Recipe, type Route } from '#services/migrations/recipes/recipe.ts';
import type { Engine, MigrationSettings, RecipeSnapshot } from '#services/migrations/domain/migration.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { DomainError } from '#shared/decider/decider.ts';

/** The API spells engines as the spec does; recipes name them as identifiers. */
export const recipeEngine = (engine: Engine): RecipeEngine => (engine === 'upgrade-service' ? 'upgrade_service' : 'openupgrade');

/** A route with no usable recipe: a 422 naming the route. */
export class NoRecipeError extends DomainError {
  constructor(message: string) {
    super(message, 'invalid');
  }
}

/** Where the current recipes come from: the recipe streams (recipeBook), or the shipped files alone. */
export interface RecipeSource {
  current(key: string): Promise<RecipeFile | undefined>;
}

/** The shipped files as a source, for tools that run without the event store (benchmarks). */
export const shippedRecipes = (files: readonly RecipeFile[]): RecipeSource => ({ current: (key) => Promise.resolve(files.find((file) => file.key === key)) });

/** `<flavor>.<origin>-<destination>` of every hop of the route, in order (16.0 → 18.0: two hops). */
export function hopKeys(route: Route, flavor: Flavor): string[] {
  const from = majorOf(route.origin);
  const to = majorOf(route.destination);
  if (!(to > from)) throw new NoRecipeError(`no route from ${route.origin} to ${route.destination}: the destination must be a later version`);
  return Array.from({ length: to - from }, (_, hop) => `${flavor}.${from + hop}.0-${from + hop + 1}.0`);
}

/** The current recipes of a route's hops, usable ones only: a missing or broken one is a 422 naming it. */
export async function routeRecipes(source: RecipeSource, route: Route, flavor: Flavor): Promise<Array<RecipeFile & { recipe: Recipe }>> {
  const hops: Array<RecipeFile & { recipe: Recipe }> = [];
  for (const key of hopKeys(route, flavor)) {
    const found = await source.current(key);
    if (!found) throw new NoRecipeError(`no recipe for ${flavor} ${route.origin} → ${route.destination}: there is no recipe ${key}`);
    const [first] = found.errors;
    if (!found.recipe || first) {
      const at = first?.line ? ` (line ${first.line}${first.column ? `, column ${first.column}` : ''})` : '';
      throw new NoRecipeError(`recipe ${key} cannot be used until it is fixed: ${first?.message ?? 'it does not parse'}${at}`);
    }
    hops.push({ ...found, recipe: found.recipe });
  }
  return hops;
}

/** One snapshot of a route's recipes: each hop's text after a marker line naming it. */
export function snapshotOf(hops: readonly RecipeFile[]): RecipeSnapshot {
  const text = joinHops(hops);
  return { key: hops.map((hop) => hop.key).join('+'), sha256: recipeDigest(text), text };
}

/**
 * How a migration snapshots the current recipes of its route (from `source`: the recipe streams),
 * and how a run's plan is made from that snapshot.
 */
export function migrationRecipes(source: RecipeSource) {
  return {
    /** The snapshot of the route's recipes, one per hop, for a new migration (or an edited draft's new route, or a resync). */
    async snapshotFor(route: Route, flavor: Flavor): Promise<RecipeSnapshot> {
      return snapshotOf(await routeRecipes(source, route, flavor));
    },
    /** The plan of a run from the migration's snapshot (never the current files: a run follows the recipe its migration took). */
    planFor(migration: Pick<MigrationSettings, 'slug' | 'origin' | 'destination' | 'purpose' | 'flavor' | 'engine' | 'recipe'>): PlannedStep[] {
      const recipe = chainRecipes(snapshotRecipes(migration.recipe));
      const facts: MigrationFacts = { slug: migration.slug, origin: migration.origin, destination: migration.destination, purpose: migration.purpose, flavor: migration.flavor, engine: recipeEngine(migration.engine) };
      try {
        return materializePlan(recipe, facts);
      } catch (error) {
        throw new NoRecipeError(`the migration's recipe cannot make a plan: ${(error as Error).message}`);
      }
    },
  };
}

export type MigrationRecipes = ReturnType<typeof migrationRecipes>;

/** The recipes of a snapshot, in hop order. */
export function snapshotRecipes(snapshot: RecipeSnapshot): Recipe[] {
  return splitHops(snapshot.text).map(({ text }) => {
    const parsed = parseRecipe(text);
    if ('errors' in parsed) throw new NoRecipeError(`the migration's recipe snapshot ${snapshot.key} no longer parses: ${parsed.errors.map((problem) => problem.message).join('; ')}`);
    return parsed.recipe;
  });
}

/** The shipped recipe files alone, read now (benchmarks; the platform reads the recipe streams). */
export const loadMigrationRecipes = async () => migrationRecipes(shippedRecipes(await loadRecipeFiles()));
