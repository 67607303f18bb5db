import type { RecipeProblem } from '#services/migrations/recipes/recipe.ts';

/**
 * The recipe context's events and state. A recipe (one hop of one flavor) is a stream
 * `recipe-<flavor>.<stem>` of saved versions: the shipped file seeds version 1 when the stream does
 * not exist, and every edit an admin saves is the next version. Migrations snapshot the current
 * version when they are created; resync compares their snapshot with it.
 */

/** Where a saved version came from: the file shipped with Forja, or an admin's edit. */
export type RecipeOrigin = 'shipped' | 'edited';

export interface SavedRecipeVersion {
  /** `<flavor>.<stem>`. */
  key: string;
  flavor: string;
  stem: string;
  /** The YAML exactly as written. */
  text: string;
  sha256: string;
  origin: RecipeOrigin;
  /** The lint result when saved (a shipped file may be broken: it is kept, and cannot be chosen). */
  errors: RecipeProblem[];
  warnings: RecipeProblem[];
}

export type SavedRecipeEvent = { type: 'RecipeSaved'; data: SavedRecipeVersion };

export type SavedRecipe = { status: 'none' } | (SavedRecipeVersion & { status: 'saved'; version: number });

export const recipeStream = (key: string): string => `recipe-${key}`;

export const initialSavedRecipe = (): SavedRecipe => ({ status: 'none' });

export function evolveSavedRecipe(state: SavedRecipe, event: SavedRecipeEvent): SavedRecipe {
  switch (event.type) {
    case 'RecipeSaved':
      return { ...event.data, status: 'saved', version: state.status === 'saved' ? state.version + 1 : 1 };
    default: {
      const unknown: never = event.type;
      return unknown;
    }
  }
}
