import { majorOf, recipeKey, type Flavor, type Recipe, type RecipeStep, type Route } from './recipe.ts';

/** Steps that exist once per migration: the source arrives once, the result is shown once. */
const FIRST_HOP_ONLY = new Set<RecipeStep['kind']>(['fetch', 'restore']);
const LAST_HOP_ONLY = new Set<RecipeStep['kind']>(['instance', 'report']);

export type RecipeResolution<T> = { hops: T[] } | { error: string; missing: string[] };

/**
 * The recipes of each hop of `route` for `flavor`, in order (16.0 → 18.0 is 16.0-17.0 then
 * 17.0-18.0), picked among `available` by their flavor and route; entries without a recipe
 * (broken files) are passed over. Chain the hops with `chainRecipes`.
 */
export function recipeFor<T extends { recipe?: Recipe | undefined }>(available: readonly T[], route: Route, flavor: Flavor): RecipeResolution<T & { recipe: Recipe }> {
  const from = majorOf(route.origin);
  const to = majorOf(route.destination);
  if (!(to > from)) return { error: `no route from ${route.origin} to ${route.destination}: the destination must be a later version`, missing: [] };
  const hops: (T & { recipe: Recipe })[] = [];
  const missing: string[] = [];
  for (let major = from; major < to; major += 1) {
    const hop = { origin: `${major}.0`, destination: `${major + 1}.0` };
    const found = available.find(
      (entry): entry is T & { recipe: Recipe } =>
        entry.recipe !== undefined && entry.recipe.flavor === flavor && entry.recipe.route.origin === hop.origin && entry.recipe.route.destination === hop.destination,
    );
    if (found) hops.push(found);
    else missing.push(recipeKey({ flavor, stem: `${hop.origin}-${hop.destination}` }));
  }
  return missing.length > 0 ? { error: `no usable recipe for ${missing.join(', ')}`, missing } : { hops };
}

/**
 * One recipe for a multi-hop route, from one recipe per hop in order. One recipe is returned as
 * it is. Otherwise every step id gets its hop's prefix (`h1_upgrade`, `h2_upgrade`); fetch and
 * restore come from the first hop only, instance and report from the last one only. The
 * pre-flight is the first hop's; each later hop's pre-flight runs as ordinary steps at the start
 * of that hop, when the database is at that hop's origin version (before, its version checks
 * could not pass), so a run-anyway that skips the pre-flight does not skip them. Each hop's
 * defaults and env are folded into its steps, since they differ between hops.
 */
export function chainRecipes(recipes: readonly Recipe[]): Recipe {
  const [first, ...rest] = recipes;
  if (!first) throw new Error('chainRecipes needs at least one recipe');
  if (rest.length === 0) return first;
  const last = rest.at(-1) ?? first;
  recipes.forEach((recipe, index) => {
    const previous = recipes[index - 1];
    if (recipe.flavor !== first.flavor || recipe.engine !== first.engine) throw new Error(`cannot chain ${recipeKey(recipe)} (${recipe.engine}) after ${recipeKey(first)} (${first.engine})`);
    if (previous && previous.route.destination !== recipe.route.origin) throw new Error(`cannot chain ${recipeKey(recipe)} after ${recipeKey(previous)}: the hops do not meet`);
  });
  const chained = recipes.map((recipe, index) => {
    const hop = index + 1;
    const own = (step: RecipeStep): RecipeStep => inHop(step, recipe, hop);
    const steps = recipe.steps.filter((step) => (hop === 1 || !FIRST_HOP_ONLY.has(step.kind)) && (hop === recipes.length || !LAST_HOP_ONLY.has(step.kind)));
    return { preflight: hop === 1 ? recipe.preflight.map(own) : [], steps: [...(hop === 1 ? [] : recipe.preflight.map(own)), ...steps.map(own)] };
  });
  return {
    format: 1,
    name: recipes.map((recipe) => recipe.name).join(' + '),
    flavor: first.flavor,
    stem: `${first.route.origin}-${last.route.destination}`,
    engine: first.engine,
    route: { origin: first.route.origin, destination: last.route.destination },
    defaults: {},
    env: {},
    preflight: chained.flatMap((hop) => hop.preflight),
    steps: chained.flatMap((hop) => hop.steps),
    hops: recipes.map((recipe) => ({ ...recipe.route })),
  };
}

/** The step with its hop's prefix and number, and the hop's defaults and env made its own. */
function inHop(step: RecipeStep, recipe: Recipe, hop: number): RecipeStep {
  const timeout = step.timeout ?? recipe.defaults.timeout;
  const retries = step.retries ?? recipe.defaults.retries;
  const limits = step.kind === 'gate' ? {} : { ...(timeout === undefined ? {} : { timeout }), ...(retries === undefined ? {} : { retries }) };
  const env = step.kind === 'erp' ? { env: { ...recipe.env, ...step.env } } : {};
  return { ...step, ...limits, ...env, id: `h${hop}_${step.id}`, hop };
}
