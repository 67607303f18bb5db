import { createHash } from 'node:crypto';
import { recipeKey, type Recipe } from './recipe.ts';

/** What a migration keeps of the recipe its plan came from, to show later what changed (resync). */
export interface RecipeSnapshot {
  /** `<flavor>.<stem>`. */
  key: string;
  sha256: string;
  text: string;
}

/** The hex SHA-256 of a recipe's YAML text, byte for byte as written (UTF-8). */
export const recipeDigest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export const recipeSnapshot = (recipe: Pick<Recipe, 'flavor' | 'stem'>, text: string): RecipeSnapshot => ({ key: recipeKey(recipe), sha256: recipeDigest(text), text });
