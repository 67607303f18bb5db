export { chainRecipes, recipeFor, type RecipeResolution } from './chainRecipes.ts';
export { lintRecipe } from './lintRecipe.ts';
export { RETRY_BACKOFF_S, materializePlan, refuseRecipe, type MaterializeOptions, type MigrationFacts } from './materializePlan.ts';
export { parseDuration } from './parseDuration.ts';
export { parseRecipe, type ParsedRecipe } from './parseRecipe.ts';
export {
  PREFLIGHT_KINDS,
  STEP_KINDS,
  defaultEngine,
  recipeKey,
  type Engine,
  type Flavor,
  type Recipe,
  type RecipeProblem,
  type RecipeStep,
  type Route,
  type StepKind,
} from './recipe.ts';
export { recipeDigest, recipeSnapshot, type RecipeSnapshot } from './recipeDigest.ts';
export { PLAN_VARIABLES, RUN_VARIABLES } from './recipeVariables.ts';
