import { DomainError, type Decider } from '#shared/decider/decider.ts';
import type { RecipeProblem } from '#services/migrations/recipes/recipe.ts';
import { evolveSavedRecipe, initialSavedRecipe, type SavedRecipe, type SavedRecipeEvent, type SavedRecipeVersion } from './savedRecipe.ts';

export type SavedRecipeCommand =
  /** Start-up: the shipped file becomes version 1, only when nobody saved this recipe yet. */
  | { type: 'SeedRecipe'; recipe: Omit<SavedRecipeVersion, 'origin'> }
  /** An admin's save: a new recipe (`create`) or the next version of an existing one. */
  | { type: 'SaveRecipe'; recipe: Omit<SavedRecipeVersion, 'origin'>; create: boolean };

/** A recipe whose lint found errors: never saved, the findings go back to the editor. */
export class RecipeLintError extends DomainError {
  constructor(
    readonly key: string,
    readonly findings: readonly RecipeProblem[],
  ) {
    const first = findings.find((finding) => finding.level === 'error');
    super(`${key} has ${findings.filter((finding) => finding.level === 'error').length} error(s)${first ? `; the first${first.line ? ` (line ${first.line}${first.column ? `, column ${first.column}` : ''})` : ''}: ${first.message}` : ''}`, 'invalid');
  }
}

function decide(command: SavedRecipeCommand, state: SavedRecipe): SavedRecipeEvent[] {
  switch (command.type) {
    case 'SeedRecipe':
      // An edited recipe is never overwritten by a start-up, and a shipped one is seeded once.
      return state.status === 'none' ? [{ type: 'RecipeSaved', data: { ...command.recipe, origin: 'shipped' } }] : [];
    case 'SaveRecipe': {
      const { recipe } = command;
      if (command.create && state.status === 'saved') throw new DomainError(`a recipe ${recipe.key} exists already: edit it instead`, 'conflict');
      if (!command.create && state.status === 'none') throw new DomainError(`there is no recipe ${recipe.key}`, 'not_found');
      if (recipe.errors.length > 0) throw new RecipeLintError(recipe.key, [...recipe.errors, ...recipe.warnings]);
      // The same text again is no new version: nothing to record.
      if (state.status === 'saved' && state.sha256 === recipe.sha256) return [];
      return [{ type: 'RecipeSaved', data: { ...recipe, origin: 'edited' } }];
    }
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const savedRecipeDecider: Decider<SavedRecipe, SavedRecipeCommand, SavedRecipeEvent> = {
  decide,
  evolve: evolveSavedRecipe,
  initialState: initialSavedRecipe,
};
