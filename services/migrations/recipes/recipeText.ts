import { parseRecipe } from './parseRecipe.ts';
import type { Recipe, RecipeProblem } from './recipe.ts';
import { recipeDigest } from './recipeDigest.ts';

/** One recipe text under its key, usable or not: the admin page lists broken ones with their findings. */
export interface RecipeFile {
  /** `<flavor>.<stem>`, e.g. `community.16.0-17.0`. */
  key: string;
  /** Where a shipped one lives, relative to the recipes folder, e.g. `community/16.0-17.0.yaml`. */
  file: string;
  text: string;
  sha256: string;
  /** Absent when there is any error. */
  recipe?: Recipe;
  errors: RecipeProblem[];
  warnings: RecipeProblem[];
}

/** `<flavor>.<stem>` from its parts; a key names one recipe (one hop of one flavor). */
export const RECIPE_KEY = /^(community|enterprise)\.([0-9]{1,3}\.0-[0-9]{1,3}\.0)$/;

/**
 * `text` parsed and linted as the recipe stored under `<flavor>.<stem>`: on top of `parseRecipe`'s
 * findings, the flavor and stem it says must be the key's, since the key is how migrations find it.
 */
export function checkRecipeText(flavor: string, stem: string, text: string): RecipeFile {
  const parsed = parseRecipe(text);
  const base = { key: `${flavor}.${stem}`, file: `${flavor}/${stem}.yaml`, text, sha256: recipeDigest(text), warnings: parsed.warnings };
  if ('errors' in parsed) return { ...base, errors: parsed.errors };
  const misplaced: RecipeProblem[] = [];
  const lineOf = (field: 'flavor' | 'stem') => lineOfKey(text, field);
  if (parsed.recipe.flavor !== flavor) misplaced.push({ level: 'error', path: '/flavor', ...lineOf('flavor'), message: `this recipe is stored as ${flavor}.${stem} but says flavor ${parsed.recipe.flavor}` });
  if (parsed.recipe.stem !== stem) misplaced.push({ level: 'error', path: '/stem', ...lineOf('stem'), message: `this recipe is stored as ${flavor}.${stem} but says stem ${parsed.recipe.stem}` });
  return misplaced.length > 0 ? { ...base, errors: misplaced } : { ...base, recipe: parsed.recipe, errors: [] };
}

/** The line of a top-level `field:` (the recipe parsed, so it is there). */
function lineOfKey(text: string, field: string): { line?: number; column?: number } {
  const index = text.split('\n').findIndex((line) => line.startsWith(`${field}:`));
  return index < 0 ? {} : { line: index + 1, column: 1 };
}
