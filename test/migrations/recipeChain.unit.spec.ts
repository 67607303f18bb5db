import { expect } from 'chai';
import { chainRecipes, recipeFor } from '#services/migrations/recipes/chainRecipes.ts';
import type { Recipe } from '#services/migrations/recipes/recipe.ts';
import { communityHop, enterpriseHop, recipeOf } from './recipeFixture.ts';

const hop16 = recipeOf(communityHop(16));
const hop17 = recipeOf(communityHop(17));
const hop18 = recipeOf(communityHop(18));
const ids = (steps: readonly { id: string }[]): string[] => steps.map((step) => step.id);

describe('recipes: chaining', () => {
  describe('chainRecipes', () => {
    const chained = chainRecipes([hop16, hop17, hop18]);

    it('covers the whole route, named after its hops', () => {
      expect(chained).to.deep.include({ format: 1, flavor: 'community', engine: 'openupgrade', stem: '16.0-19.0', route: { origin: '16.0', destination: '19.0' } });
      expect(chained.hops).to.deep.equal([hop16.route, hop17.route, hop18.route]);
      expect(chained.name).to.equal('Test 16.0 -> 17.0 + Test 17.0 -> 18.0 + Test 18.0 -> 19.0');
    });

    it('prefixes every id with its hop, fetching and restoring once, showing the result once', () => {
      expect(ids(chained.steps)).to.deep.equal([
        'h1_fetch', 'h1_restore', 'h1_backup_origin', 'h1_approve', 'h1_upgrade', 'h1_verify',
        'h2_source_version', 'h2_coverage', 'h2_backup_origin', 'h2_approve', 'h2_upgrade', 'h2_verify',
        'h3_source_version', 'h3_coverage', 'h3_backup_origin', 'h3_approve', 'h3_upgrade', 'h3_verify', 'h3_preview', 'h3_report',
      ]);
      expect(chained.steps.map((step) => step.hop)).to.deep.equal([1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3]);
      expect(new Set(ids([...chained.preflight, ...chained.steps])).size).to.equal(chained.preflight.length + chained.steps.length);
    });

    it("keeps the first hop's pre-flight as the pre-flight; later ones open their hop", () => {
      expect(ids(chained.preflight)).to.deep.equal(['h1_source_version', 'h1_coverage']);
      expect(chained.steps.find((step) => step.id === 'h2_source_version')).to.deep.include({ kind: 'check', expect: { matches: '^17\\.0\\.' } });
    });

    it("folds each hop's defaults and env into its steps", () => {
      const hop17Slow = recipeOf({ ...communityHop(17), defaults: { timeout: '3h', retries: 2 }, env: { OPENUPGRADE_TARGET_VERSION: '${migration.destination}', HOP: 'two' } });
      const folded = chainRecipes([hop16, hop17Slow]);
      expect(folded.defaults).to.deep.equal({});
      expect(folded.env).to.deep.equal({});
      const step = (id: string) => folded.steps.find((candidate) => candidate.id === id);
      expect(step('h1_backup_origin')).to.include({ timeout: '2h', retries: 0 });
      expect(step('h2_backup_origin')).to.include({ timeout: '3h', retries: 2 });
      expect(step('h2_upgrade')).to.include({ timeout: '8h', retries: 1 });
      expect(step('h2_upgrade')).to.deep.include({ env: { OPENUPGRADE_TARGET_VERSION: '${migration.destination}', HOP: 'two' } });
      expect(step('h1_approve')).not.to.have.any.keys('timeout', 'retries');
    });

    it('returns a single recipe as it is', () => {
      expect(chainRecipes([hop16])).to.equal(hop16);
    });

    it('refuses hops that do not meet, of another flavor, or none', () => {
      expect(() => chainRecipes([hop16, hop18])).to.throw('do not meet');
      expect(() => chainRecipes([hop16, recipeOf(enterpriseHop(17))])).to.throw('cannot chain enterprise.17.0-18.0');
      expect(() => chainRecipes([])).to.throw();
    });

    it('leaves its input alone', () => {
      const before = JSON.stringify(hop17);
      chainRecipes([hop16, hop17]);
      expect(JSON.stringify(hop17)).to.equal(before);
    });
  });

  describe('recipeFor', () => {
    const entry = (recipe: Recipe | undefined, key: string) => ({ key, recipe });
    const available = [entry(hop17, 'community.17.0-18.0'), entry(undefined, 'community.18.0-19.0'), entry(hop16, 'community.16.0-17.0'), entry(recipeOf(enterpriseHop(16)), 'enterprise.16.0-17.0')];

    it('finds one recipe per hop, in route order', () => {
      expect(recipeFor(available, { origin: '16.0', destination: '18.0' }, 'community')).to.deep.equal({ hops: [available[2], available[0]] });
      expect(recipeFor(available, { origin: '16.0', destination: '17.0' }, 'enterprise')).to.deep.equal({ hops: [available[3]] });
    });

    it('names the hops that have no usable recipe (a broken file counts as none)', () => {
      expect(recipeFor(available, { origin: '16.0', destination: '19.0' }, 'community')).to.deep.equal({ error: 'no usable recipe for community.18.0-19.0', missing: ['community.18.0-19.0'] });
      expect(recipeFor(available, { origin: '16.0', destination: '18.0' }, 'enterprise')).to.deep.include({ missing: ['enterprise.17.0-18.0'] });
    });

    it('refuses a route that does not go forward', () => {
      expect(recipeFor(available, { origin: '17.0', destination: '17.0' }, 'community')).to.deep.include({ missing: [] });
      expect(recipeFor(available, { origin: '18.0', destination: '16.0' }, 'community')).to.have.property('error').that.matches(/later version/);
    });
  });
});
