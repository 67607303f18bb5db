import { expect } from 'chai';
import { getRecipe, listRecipes, recipesProjection } from '#projections/recipes/recipes.ts';
import { recipeDigest } from '#services/migrations/recipes/recipeDigest.ts';
import { joinHops } from '#services/migrations/recipes/snapshotHops.ts';
import type { SavedRecipeVersion } from '#services/migrations/domain/savedRecipe.ts';
import { event, projectionSpec } from '#test/support/projectionSpec.ts';

const spec = projectionSpec(recipesProjection);
const saved = (key: string, text: string, origin: 'shipped' | 'edited' = 'shipped', errors: SavedRecipeVersion['errors'] = []) => {
  const [flavor = '', stem = ''] = key.split(/\.(.*)/s);
  return event({ type: 'RecipeSaved', data: { key, flavor, stem, text, sha256: recipeDigest(text), origin, errors, warnings: [] } satisfies SavedRecipeVersion }, { stream: `recipe-${key}` });
};
const A = 'community.16.0-17.0';
const B = 'community.17.0-18.0';
const snapshot = (...hops: Array<[string, string]>) => {
  const text = joinHops(hops.map(([key, body]) => ({ key, text: body })));
  return { key: hops.map(([key]) => key).join('+'), sha256: recipeDigest(text), text };
};
const created = (slug: string, recipe: ReturnType<typeof snapshot>) =>
  event({ type: 'MigrationCreated', data: { slug, name: `Name of ${slug}`, recipe } }, { stream: `migration-${slug}` });

describe('recipes projection', () => {
  it('keeps the current version of each recipe, broken ones included, with their findings', async () => {
    const broken = [{ level: 'error' as const, path: '/steps', line: 2, column: 1, message: 'no fetch step' }];
    await spec
      .given([saved(A, 'v1'), saved(B, 'bad', 'shipped', broken)])
      .when([saved(A, 'v2', 'edited')])
      .then(async (db) => (await listRecipes(db)).map((row) => [row.key, row.version, row.text, row.origin, row.errors]), [
        [A, 2, 'v2', 'edited', []],
        [B, 1, 'bad', 'shipped', broken],
      ]);
  });

  it('says which migration took which version of each hop, for multi-hop snapshots too', async () => {
    await spec
      .given([saved(A, 'v1'), saved(B, 'b1')])
      .when([created('one', snapshot([A, 'v1'])), saved(A, 'v2', 'edited'), created('two', snapshot([A, 'v2'], [B, 'b1'])), created('old', snapshot([A, 'never saved']))])
      .then(async (db) => Object.fromEntries((await listRecipes(db)).map((row) => [row.key, row.used_by])), {
        [A]: [
          { slug: 'old', name: 'Name of old', version: null },
          { slug: 'one', name: 'Name of one', version: 1 },
          { slug: 'two', name: 'Name of two', version: 2 },
        ],
        [B]: [{ slug: 'two', name: 'Name of two', version: 1 }],
      });
  });

  it('follows an edited route and forgets a deleted migration', async () => {
    const edited = event({ type: 'MigrationEdited', data: { slug: 'one', changes: { recipe: snapshot([B, 'b1']) } } }, { stream: 'migration-one' });
    const deleted = event({ type: 'MigrationDeleted', data: { slug: 'two' } }, { stream: 'migration-two' });
    await spec
      .given([saved(A, 'v1'), saved(B, 'b1'), created('one', snapshot([A, 'v1'])), created('two', snapshot([A, 'v1']))])
      .when([edited, deleted])
      .then(async (db) => (await listRecipes(db)).map((row) => [row.key, row.used_by.map((use) => use.slug)]), [
        [A, []],
        [B, ['one']],
      ]);
  });

  it('finds one recipe by key', async () => {
    await spec.given([saved(A, 'v1')]).when([]).then(async (db) => (await getRecipe(db, A))?.text, 'v1');
    await spec.given([]).when([]).then(async (db) => getRecipe(db, A), undefined);
  });

  it('comes out the same after a redelivery and a replay', async () => {
    await spec.given([saved(A, 'v1'), created('one', snapshot([A, 'v1']))]).when([saved(A, 'v2', 'edited'), created('two', snapshot([A, 'v2']))]).replayTwice();
  });

  it('splits snapshot hops back exactly as saved', () => {
    expect(joinHops([{ key: A, text: 'x\n' }, { key: B, text: 'y' }])).to.equal(`# forja-recipe: ${A}\nx\n\n# forja-recipe: ${B}\ny`);
  });
});
