import type { Selectable } from 'kysely';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { MigrationEvent } from '#services/migrations/domain/migration.ts';
import type { SavedRecipeEvent } from '#services/migrations/domain/savedRecipe.ts';
import { hopDigests } from '#services/migrations/recipes/snapshotHops.ts';
import type { ReadModel, ReadModelDatabase, ReadModelTransaction } from '../readModel.ts';
import type { Projection } from '../runner/projection.ts';
import type { RecipesTable } from './recipes.table.ts';

export type RecipeRow = Selectable<RecipesTable>;

/** A migration that took a version of a recipe; `version` is null when the text it took was never a saved version. */
export interface RecipeUser {
  slug: string;
  name: string;
  version: number | null;
}

export type RecipeListRow = RecipeRow & { saved_by_email: string | null; used_by: RecipeUser[] };

/** Records which recipe texts a migration holds now (its snapshot's hops), replacing what it held before. */
async function recordUsage(trx: ReadModelTransaction, slug: string, name: string | undefined, snapshotText: string): Promise<void> {
  const known = name ?? (await trx.selectFrom('recipe_usage').select('name').where('slug', '=', slug).executeTakeFirst())?.name ?? slug;
  await trx.deleteFrom('recipe_usage').where('slug', '=', slug).execute();
  const hops = hopDigests(snapshotText);
  if (hops.length > 0) await trx.insertInto('recipe_usage').values(hops.map((hop) => ({ slug, name: known, key: hop.key, sha256: hop.sha256 }))).onConflict((oc) => oc.columns(['slug', 'key']).doNothing()).execute();
}

/** The recipes (current version, every version) and which migrations took which version. */
export const recipesProjection: Projection<ReadModelDatabase> = {
  name: 'recipes',
  eventTypes: ['RecipeSaved', 'MigrationCreated', 'MigrationEdited', 'MigrationResynced', 'MigrationDeleted'],
  tables: ['recipes', 'recipe_versions', 'recipe_usage'],
  async apply(trx: ReadModelTransaction, events: RecordedEvent[]) {
    for (const recorded of events) {
      const at = new Date(recorded.metadata.at);
      const actor = recorded.metadata.actor;
      if (recorded.type === 'RecipeSaved') {
        const { data } = recorded as unknown as SavedRecipeEvent;
        // One RecipeSaved per version: the stream's version is the recipe's, and a redelivery rewrites the same row.
        const version = recorded.version;
        const saved = { key: data.key, version, sha256: data.sha256, origin: data.origin, saved_by: actor, saved_at: at };
        await trx.insertInto('recipe_versions').values(saved).onConflict((oc) => oc.columns(['key', 'version']).doUpdateSet(saved)).execute();
        const row = {
          key: data.key,
          flavor: data.flavor,
          stem: data.stem,
          version,
          text: data.text,
          sha256: data.sha256,
          origin: data.origin,
          errors: JSON.stringify(data.errors),
          warnings: JSON.stringify(data.warnings),
          saved_by: actor,
          saved_at: at,
        };
        await trx
          .insertInto('recipes')
          .values(row)
          .onConflict((oc) => oc.column('key').doUpdateSet(row).where('recipes.version', '<=', version))
          .execute();
        continue;
      }
      const event = { type: recorded.type, data: recorded.data } as MigrationEvent;
      if (event.type === 'MigrationCreated') await recordUsage(trx, event.data.slug, event.data.name, event.data.recipe.text);
      else if (event.type === 'MigrationEdited' && event.data.changes.recipe) await recordUsage(trx, event.data.slug, undefined, event.data.changes.recipe.text);
      else if (event.type === 'MigrationResynced' && event.data.recipe) await recordUsage(trx, event.data.slug, undefined, event.data.recipe.text);
      else if (event.type === 'MigrationDeleted') await trx.deleteFrom('recipe_usage').where('slug', '=', event.data.slug).execute();
    }
  },
};

/** Every recipe by key, broken ones included, with who saved it and the migrations using each version. */
export async function listRecipes(db: ReadModel): Promise<RecipeListRow[]> {
  const rows = await db
    .selectFrom('recipes')
    .leftJoin('users', 'users.user_id', 'recipes.saved_by')
    .selectAll('recipes')
    .select('users.email as saved_by_email')
    .orderBy('recipes.key')
    .execute();
  const usage = await db
    .selectFrom('recipe_usage')
    .leftJoin('recipe_versions', (join) => join.onRef('recipe_versions.key', '=', 'recipe_usage.key').onRef('recipe_versions.sha256', '=', 'recipe_usage.sha256'))
    .select(['recipe_usage.key', 'recipe_usage.slug', 'recipe_usage.name', (eb) => eb.fn.max('recipe_versions.version').as('version')])
    .groupBy(['recipe_usage.key', 'recipe_usage.slug', 'recipe_usage.name'])
    .orderBy('recipe_usage.name')
    .execute();
  return rows.map((row) => ({
    ...row,
    used_by: usage.filter((use) => use.key === row.key).map((use) => ({ slug: use.slug, name: use.name, version: use.version === null ? null : Number(use.version) })),
  }));
}

export function getRecipe(db: ReadModel, key: string): Promise<RecipeRow | undefined> {
  return db.selectFrom('recipes').selectAll().where('key', '=', key).executeTakeFirst();
}
