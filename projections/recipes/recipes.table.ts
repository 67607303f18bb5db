import type { JSONColumnType } from 'kysely';
import type { RecipeProblem } from '#services/migrations/recipes/recipe.ts';

/** One row per recipe: its current version, for the admin list and the editor. */
export interface RecipesTable {
  /** `<flavor>.<stem>`. */
  key: string;
  flavor: string;
  stem: string;
  version: number;
  text: string;
  sha256: string;
  /** `shipped` (the file seeded it) or `edited`. */
  origin: string;
  /** The lint result when saved; pages lint the text again, since rules may have changed since. */
  errors: JSONColumnType<RecipeProblem[]>;
  warnings: JSONColumnType<RecipeProblem[]>;
  saved_by: string;
  saved_at: Date;
}

/** Every saved version of every recipe: what a migration's snapshot of a hop was. */
export interface RecipeVersionsTable {
  key: string;
  version: number;
  sha256: string;
  origin: string;
  saved_by: string;
  saved_at: Date;
}

/** Which migration took which recipe text: one row per hop of its snapshot. */
export interface RecipeUsageTable {
  slug: string;
  name: string;
  key: string;
  sha256: string;
}

export interface RecipesDb {
  recipes: RecipesTable;
  recipe_versions: RecipeVersionsTable;
  recipe_usage: RecipeUsageTable;
}
