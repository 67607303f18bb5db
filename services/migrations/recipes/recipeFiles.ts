import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkRecipeText, type RecipeFile } from './recipeText.ts';

export type { RecipeFile } from './recipeText.ts';

/** The shipped recipes: `<flavor>/<stem>.yaml`. */
export const RECIPE_FILES_DIR = fileURLToPath(new URL('./files/', import.meta.url));

/**
 * Every `<flavor>/<stem>.yaml` below `dir`, parsed and linted (`checkRecipeText`), sorted by key.
 * These are the shipped recipes: they seed the recipe streams that do not exist yet.
 */
export async function loadRecipeFiles(dir: string = RECIPE_FILES_DIR): Promise<RecipeFile[]> {
  const flavors = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const files: RecipeFile[] = [];
  for (const flavor of flavors) {
    const names = (await readdir(join(dir, flavor), { withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.yaml'));
    for (const { name } of names) {
      const stem = name.slice(0, -'.yaml'.length);
      const text = await readFile(join(dir, flavor, name), 'utf8');
      files.push(checkRecipeText(flavor, stem, text));
    }
  }
  return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
