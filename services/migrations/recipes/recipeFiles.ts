import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRecipe } from './parseRecipe.ts';
import type { Recipe, RecipeProblem } from './recipe.ts';
import { recipeDigest } from './recipeDigest.ts';

/** The shipped recipes: `<flavor>/<stem>.yaml`. */
export const RECIPE_FILES_DIR = fileURLToPath(new URL('./files/', import.meta.url));

/** One recipe file, usable or not: the admin page lists broken ones with their findings. */
export interface RecipeFile {
  /** `<flavor>.<stem>` from the file's place, e.g. `community.16.0-17.0`. */
  key: string;
  /** Relative to the folder, e.g. `community/16.0-17.0.yaml`. */
  file: string;
  text: string;
  sha256: string;
  /** Absent when there is any error. */
  recipe?: Recipe;
  errors: RecipeProblem[];
  warnings: RecipeProblem[];
}

/**
 * Every `<flavor>/<stem>.yaml` below `dir`, parsed and linted, sorted by key. A file whose
 * flavor or stem differs from its place is an error: the key is how migrations find it.
 */
export async function loadRecipeFiles(dir: string = RECIPE_FILES_DIR): Promise<RecipeFile[]> {
  const flavors = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const files: RecipeFile[] = [];
  for (const flavor of flavors) {
    const names = (await readdir(join(dir, flavor), { withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.yaml'));
    for (const { name } of names) {
      const stem = name.slice(0, -'.yaml'.length);
      const text = await readFile(join(dir, flavor, name), 'utf8');
      files.push(recipeFile(flavor, stem, text));
    }
  }
  return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function recipeFile(flavor: string, stem: string, text: string): RecipeFile {
  const parsed = parseRecipe(text);
  const base = { key: `${flavor}.${stem}`, file: `${flavor}/${stem}.yaml`, text, sha256: recipeDigest(text), warnings: parsed.warnings };
  if ('errors' in parsed) return { ...base, errors: parsed.errors };
  const misplaced: RecipeProblem[] = [];
  if (parsed.recipe.flavor !== flavor) misplaced.push({ level: 'error', path: '/flavor', message: `the file is in ${flavor}/ but says flavor ${parsed.recipe.flavor}` });
  if (parsed.recipe.stem !== stem) misplaced.push({ level: 'error', path: '/stem', message: `the file is named ${stem}.yaml but says stem ${parsed.recipe.stem}` });
  return misplaced.length > 0 ? { ...base, errors: misplaced } : { ...base, recipe: parsed.recipe, errors: [] };
}
