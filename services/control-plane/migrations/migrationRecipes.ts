import { chainRecipes, materializePlan, parseRecipe, recipeDigest, recipeFor, type MigrationFacts } from '#services/migrations/recipes/index.ts';
import { loadRecipeFiles, type RecipeFile } from '#services/migrations/recipes/recipeFiles.ts';
import type { Engine as RecipeEngine, Flavor, Recipe } from '#services/migrations/recipes/recipe.ts';
import type { Engine, MigrationSettings, RecipeSnapshot } from '#services/migrations/domain/migration.ts';
import type { PlannedStep } from '#shared/workflow/plan.ts';
import { DomainError } from '#shared/decider/decider.ts';

/** Each hop's text in a snapshot starts with this line, so a multi-hop snapshot splits back into its recipes. */
const HOP_MARK = '# forja-recipe: ';

/** The API spells engines as the spec does; recipes name them as identifiers. */
export const recipeEngine = (engine: Engine): RecipeEngine => (engine === 'upgrade-service' ? 'upgrade_service' : 'openupgrade');

/** A route with no usable recipe: a 422 naming the route. */
export class NoRecipeError extends DomainError {
  constructor(message: string) {
    super(message, 'invalid');
  }
}

/**
 * The recipes the control-plane knows (the shipped files, loaded once at start-up), how a
 * migration snapshots the ones of its route, and how a run's plan is made from that snapshot.
 */
export function migrationRecipes(files: readonly RecipeFile[]) {
  return {
    files,
    /** The snapshot of the route's recipes, one per hop, for a new migration (or an edited draft's new route). */
    snapshotFor(route: { origin: string; destination: string }, flavor: Flavor): RecipeSnapshot {
      const found = recipeFor(files, route, flavor);
      if ('error' in found) throw new NoRecipeError(`no recipe for ${flavor} ${route.origin} → ${route.destination}: ${found.error}`);
      const text = found.hops.map((hop) => `${HOP_MARK}${hop.key}\n${hop.text}`).join('\n');
      return { key: found.hops.map((hop) => hop.key).join('+'), sha256: recipeDigest(text), text };
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
function snapshotRecipes(snapshot: RecipeSnapshot): Recipe[] {
  const texts = snapshot.text.split(HOP_MARK).slice(1).map((part) => part.slice(part.indexOf('\n') + 1));
  return texts.map((text) => {
    const parsed = parseRecipe(text);
    if ('errors' in parsed) throw new NoRecipeError(`the migration's recipe snapshot ${snapshot.key} no longer parses: ${parsed.errors.map((problem) => problem.message).join('; ')}`);
    return parsed.recipe;
  });
}

/** The shipped recipe files, read at start-up. */
export const loadMigrationRecipes = async () => migrationRecipes(await loadRecipeFiles());
