import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chainRecipes, recipeFor } from '#services/migrations/recipes/chainRecipes.ts';
import { materializePlan } from '#services/migrations/recipes/materializePlan.ts';
import { recipeDigest } from '#services/migrations/recipes/recipeDigest.ts';
import { loadRecipeFiles } from '#services/migrations/recipes/recipeFiles.ts';
import { communityHop, yamlOf } from './recipeFixture.ts';

describe('recipes: files', () => {
  it('ships every hop from 16.0 to 19.0 for both flavors, each without findings', async () => {
    const files = await loadRecipeFiles();
    expect(files.map((file) => file.key)).to.deep.equal([
      'community.16.0-17.0', 'community.17.0-18.0', 'community.18.0-19.0',
      'enterprise.16.0-17.0', 'enterprise.17.0-18.0', 'enterprise.18.0-19.0',
    ]);
    for (const file of files) {
      expect({ key: file.key, errors: file.errors, warnings: file.warnings }).to.deep.equal({ key: file.key, errors: [], warnings: [] });
      expect(file.recipe?.engine).to.equal(file.key.startsWith('community') ? 'openupgrade' : 'upgrade_service');
      expect(file.sha256).to.equal(recipeDigest(file.text));
    }
  });

  for (const [flavor, engine] of [['community', 'openupgrade'], ['enterprise', 'upgrade_service']] as const) {
    it(`plans a ${flavor} migration from 16.0 to 19.0 from the shipped hops`, async () => {
      const resolved = recipeFor(await loadRecipeFiles(), { origin: '16.0', destination: '19.0' }, flavor);
      if (!('hops' in resolved)) throw new Error(resolved.error);
      const plan = materializePlan(chainRecipes(resolved.hops.map((hop) => hop.recipe)), { origin: '16.0', destination: '19.0', purpose: 'test', flavor, engine, slug: 'acme' });
      expect(plan.filter((step) => step.type === 'fetch' || step.type === 'restore').map((step) => step.id)).to.deep.equal(['h1_fetch', 'h1_restore']);
      expect(plan.filter((step) => step.type === 'gate')).to.deep.equal([]);
      expect(new Set(plan.map((step) => step.id)).size).to.equal(plan.length);
    });
  }

  describe('a folder with broken files', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'forja-recipes-'));
      await mkdir(join(dir, 'community'));
      await mkdir(join(dir, 'enterprise'));
      await writeFile(join(dir, 'community', '16.0-17.0.yaml'), yamlOf(communityHop()));
      await writeFile(join(dir, 'community', '17.0-18.0.yaml'), 'format: 1\nname: a\nname: b\n');
      await writeFile(join(dir, 'enterprise', '16.0-17.0.yaml'), yamlOf(communityHop()));
      await writeFile(join(dir, 'community', 'notes.txt'), 'not a recipe');
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('lists broken ones too, with their findings, and no recipe', async () => {
      const files = await loadRecipeFiles(dir);
      expect(files.map((file) => [file.key, file.file, file.recipe !== undefined])).to.deep.equal([
        ['community.16.0-17.0', 'community/16.0-17.0.yaml', true],
        ['community.17.0-18.0', 'community/17.0-18.0.yaml', false],
        ['enterprise.16.0-17.0', 'enterprise/16.0-17.0.yaml', false],
      ]);
      expect(files[1]?.errors[0]).to.include({ level: 'error', line: 3 });
      expect(files[1]?.text).to.equal('format: 1\nname: a\nname: b\n');
      const flavorLine = (files[2]?.text.split('\n').findIndex((line) => line.startsWith('flavor:')) ?? -2) + 1;
      expect(files[2]?.errors).to.deep.equal([{ level: 'error', path: '/flavor', line: flavorLine, column: 1, message: 'this recipe is stored as enterprise.16.0-17.0 but says flavor community' }]);
    });
  });
});
