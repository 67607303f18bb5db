import { randomUUID } from 'node:crypto';
import { DomainError } from '#shared/decider/decider.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import type { EventMetadata, EventStore } from '#shared/eventStore/eventStore.ts';
import { savedRecipeDecider } from '#services/migrations/domain/savedRecipe.decider.ts';
import { recipeStream, type SavedRecipeVersion } from '#services/migrations/domain/savedRecipe.ts';
import { checkRecipeText, RECIPE_KEY, type RecipeFile } from '#services/migrations/recipes/recipeText.ts';

/** A recipe as it is now: its current version, linted again with today's rules. */
export type CurrentRecipe = RecipeFile & { version: number };

/** What an admin sends to save: the text, and either the key being edited or the flavor and stem of a new one. */
export interface RecipeSaveInput {
  yaml: string;
  key?: string;
  flavor?: string;
  stem?: string;
}

/** A refused field of a save: a 422 naming it. */
export class RecipeInputError extends DomainError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message, 'invalid');
  }
}

const versionOf = (file: RecipeFile): Omit<SavedRecipeVersion, 'origin'> => {
  const [flavor = '', stem = ''] = file.key.split(/\.(.*)/s);
  return { key: file.key, flavor, stem, text: file.text, sha256: file.sha256, errors: file.errors, warnings: file.warnings };
};

/** The key and what it says of itself, from an edit's `key` or a new recipe's flavor and stem. */
function keyOf(input: RecipeSaveInput): { key: string; flavor: string; stem: string; create: boolean } {
  const create = input.key === undefined || input.key === '';
  const key = create ? `${input.flavor ?? ''}.${input.stem ?? ''}` : (input.key ?? '');
  const parts = RECIPE_KEY.exec(key);
  if (!parts) {
    if (!create) throw new RecipeInputError('key', `${JSON.stringify(key)} is not a recipe key (<flavor>.<origin>-<destination>, e.g. community.16.0-17.0)`);
    if (!['community', 'enterprise'].includes(input.flavor ?? '')) throw new RecipeInputError('flavor', 'the flavor is community or enterprise');
    throw new RecipeInputError('stem', 'the stem is "<origin>-<destination>", e.g. 16.0-17.0');
  }
  return { key, flavor: parts[1] ?? '', stem: parts[2] ?? '', create };
}

/**
 * The recipes as the event store has them (`recipe-<flavor>.<stem>`): seeded from the shipped
 * files at start-up, saved by admins, read by migrations when they snapshot their route.
 */
export function recipeBook(store: EventStore) {
  const send = (key: string, command: Parameters<typeof savedRecipeDecider.decide>[0], metadata: EventMetadata) =>
    handleCommand(store, savedRecipeDecider, recipeStream(key), command, { metadata });

  return {
    /** Seeds every shipped recipe whose stream does not exist; says which were seeded. */
    async seed(files: readonly RecipeFile[]): Promise<string[]> {
      const seeded: string[] = [];
      for (const file of files) {
        const metadata: EventMetadata = { correlationId: randomUUID(), causationId: randomUUID(), actor: 'system', at: new Date().toISOString(), via: 'recipe-seed', file: file.file };
        const result = await send(file.key, { type: 'SeedRecipe', recipe: versionOf(file) }, metadata);
        if (result.events.length > 0) seeded.push(file.key);
      }
      return seeded;
    },

    /** The current version of `key`, or undefined when there is none; linted now, so a rule added since counts. */
    async current(key: string): Promise<CurrentRecipe | undefined> {
      const { state } = await aggregateStream(store, savedRecipeDecider, recipeStream(key));
      if (state.status === 'none') return undefined;
      return { ...checkRecipeText(state.flavor, state.stem, state.text), version: state.version };
    },

    /**
     * Lints and saves: a new recipe (flavor + stem) or the next version of `key`. A text with lint
     * errors is refused (`RecipeLintError`, with every finding); the same text again saves nothing.
     */
    async save(input: RecipeSaveInput, metadata: EventMetadata) {
      const { key, flavor, stem, create } = keyOf(input);
      if (input.yaml.trim() === '') throw new RecipeInputError('yaml', 'the recipe is empty');
      const checked = checkRecipeText(flavor, stem, input.yaml);
      const result = await send(key, { type: 'SaveRecipe', recipe: versionOf(checked), create }, metadata);
      const state = result.aggregate.state;
      return { key, version: state.status === 'saved' ? state.version : 0, changed: result.events.length > 0, warnings: checked.warnings, lastGlobalPosition: result.lastGlobalPosition };
    },
  };
}

export type RecipeBook = ReturnType<typeof recipeBook>;
