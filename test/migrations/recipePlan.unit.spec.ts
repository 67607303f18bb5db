import { expect } from 'chai';
import { chainRecipes } from '#services/migrations/recipes/chainRecipes.ts';
import { materializePlan, refuseRecipe, type MigrationFacts } from '#services/migrations/recipes/materializePlan.ts';
import { recipeDigest, recipeSnapshot } from '#services/migrations/recipes/recipeDigest.ts';
import { communityHop, recipeOf, yamlOf } from './recipeFixture.ts';

const migration = (changes: Partial<MigrationFacts> = {}): MigrationFacts => ({
  origin: '16.0',
  destination: '17.0',
  purpose: 'production',
  flavor: 'community',
  engine: 'openupgrade',
  slug: 'acme-17',
  ...changes,
});
const recipe = recipeOf(communityHop());
const hop1 = { number: 1, origin: '16.0', destination: '17.0' };

describe('recipes: plans', () => {
  describe('materializePlan', () => {
    const plan = materializePlan(recipe, migration());
    const step = (id: string, steps = plan) => steps.find((candidate) => candidate.id === id);

    it('fetches and restores first, then the pre-flight checks that database, then the steps, each saying its phase and hop', () => {
      expect(plan.map((planned) => `${String(planned.params.phase)}:${planned.id}`)).to.deep.equal([
        'steps:fetch', 'steps:restore',
        'preflight:source_version', 'preflight:coverage',
        'steps:backup_origin', 'steps:approve', 'steps:upgrade', 'steps:verify', 'steps:preview', 'steps:report',
      ]);
      expect(plan.every((planned) => JSON.stringify(planned.params.hop) === JSON.stringify(hop1))).to.equal(true);
    });

    it('gives each kind its params, with defaults filled in and env merged into erp steps', () => {
      expect(step('coverage')).to.deep.equal({ id: 'coverage', type: 'modules', params: { phase: 'preflight', hop: hop1, allowMissing: ['theme_*'] }, timeoutS: 7200 });
      expect(step('verify')?.params).to.deep.include({ expect: { rows: 0 }, severity: 'error' });
      expect(step('upgrade')).to.deep.equal({
        id: 'upgrade',
        type: 'erp',
        params: {
          phase: 'steps',
          hop: hop1,
          version: 'destination',
          erpVersion: '17.0',
          args: ['--update=all', '--stop-after-init', '--load=base,web,openupgrade_framework', '--upgrade-path=${paths.upgrade}'],
          env: { OPENUPGRADE_TARGET_VERSION: '17.0' },
        },
        timeoutS: 28_800,
        retries: { count: 1, backoffS: 30 },
      });
    });

    it('replaces plan-time variables and leaves ${paths.upgrade} and ${run.number} to the executor', () => {
      const doc = communityHop();
      doc.steps[5].sql = "select '${migration.slug}', '${migration.purpose}', '${migration.flavor}', '${migration.engine}', '${migration.origin}', '${hop.destination}', ${run.number}";
      const [verify] = materializePlan(recipeOf(doc), migration()).filter((planned) => planned.id === 'verify');
      expect(verify?.params.sql).to.equal("select 'acme-17', 'production', 'community', 'openupgrade', '16.0', '17.0', ${run.number}");
      expect(step('approve')?.params.message).to.equal('Approve acme-17');
      expect(step('upgrade')?.params.args).to.include('--upgrade-path=${paths.upgrade}');
    });

    it('leaves out a step whose when is false', () => {
      expect(step('approve')).to.deep.equal({ id: 'approve', type: 'gate', params: { phase: 'steps', hop: hop1, message: 'Approve acme-17' } });
      expect(step('approve', materializePlan(recipe, migration({ purpose: 'test' })))).to.equal(undefined);
      const doc = communityHop();
      doc.steps[2].when = "${migration.purpose} != 'production'";
      expect(step('backup_origin', materializePlan(recipeOf(doc), migration()))).to.equal(undefined);
      expect(step('backup_origin', materializePlan(recipeOf(doc), migration({ purpose: 'test' })))).to.have.property('type', 'backup');
    });

    it('turns timeouts into seconds and retries into a policy, gates having neither', () => {
      const doc = communityHop();
      doc.defaults = { timeout: '1h30m', retries: 2 };
      doc.steps[2].timeout = '45s';
      doc.steps[5].retries = 0;
      const timed = materializePlan(recipeOf(doc), migration());
      expect(step('backup_origin', timed)).to.include({ timeoutS: 45 }).and.deep.include({ retries: { count: 2, backoffS: 30 } });
      expect(step('verify', timed)).to.include({ timeoutS: 5400 }).and.not.to.have.property('retries');
      expect(step('approve', timed)).not.to.have.any.keys('timeoutS', 'retries');
      delete doc.defaults;
      expect(step('report', materializePlan(recipeOf(doc), migration()))).to.deep.equal({ id: 'report', type: 'report', params: { phase: 'steps', hop: hop1 } });
    });

    it('skips the pre-flight when asked', () => {
      const skipped = materializePlan(recipe, migration(), { skipPreflight: true });
      expect(skipped.map((planned) => planned.id)).to.deep.equal(plan.filter((planned) => planned.params.phase !== 'preflight').map((planned) => planned.id));
    });

    it('is plain JSON, and the same every time', () => {
      expect(JSON.parse(JSON.stringify(plan))).to.deep.equal(plan);
      expect(materializePlan(recipeOf(communityHop()), migration())).to.deep.equal(plan);
    });

    it('plans a chained route hop by hop: hop variables per hop, migration ones for the whole route', () => {
      const chained = chainRecipes([recipe, recipeOf(communityHop(17))]);
      const route = materializePlan(chained, migration({ destination: '18.0', slug: 'acme-18' }));
      expect(route.filter((planned) => planned.params.phase === 'preflight').map((planned) => planned.id)).to.deep.equal(['h1_source_version', 'h1_coverage']);
      expect(route.filter((planned) => planned.type === 'fetch' || planned.type === 'restore').map((planned) => planned.id)).to.deep.equal(['h1_fetch', 'h1_restore']);
      expect(step('h1_verify', route)?.params.sql).to.match(/not like '17\.0\.%'/);
      expect(step('h2_verify', route)?.params.sql).to.match(/not like '18\.0\.%'/);
      expect(step('h2_upgrade', route)?.params).to.deep.include({ hop: { number: 2, origin: '17.0', destination: '18.0' }, erpVersion: '18.0', env: { OPENUPGRADE_TARGET_VERSION: '18.0' } });
      expect(step('h1_upgrade', route)?.params).to.deep.include({ erpVersion: '17.0', env: { OPENUPGRADE_TARGET_VERSION: '18.0' } });
      expect(step('h2_source_version', route)).to.deep.include({ params: { phase: 'steps', hop: { number: 2, origin: '17.0', destination: '18.0' }, sql: step('source_version')?.params.sql, expect: { matches: '^17\\.0\\.' }, severity: 'error' } });
      expect(materializePlan(chained, migration({ destination: '18.0' }), { skipPreflight: true }).map((planned) => planned.id)).to.include('h2_source_version');
    });

    it('refuses a migration the recipe is not for, or whose values are not plain words', () => {
      expect(refuseRecipe(recipe, migration())).to.equal(null);
      expect(refuseRecipe(recipe, migration({ destination: '18.0' }))).to.match(/from 16\.0 to 17\.0/);
      expect(refuseRecipe(recipe, migration({ flavor: 'enterprise' }))).to.match(/for community/);
      expect(refuseRecipe(recipe, migration({ engine: 'upgrade_service' }))).to.match(/upgrades with openupgrade/);
      expect(refuseRecipe(recipe, migration({ purpose: "x'; drop table res_users; --" }))).to.match(/not a plain word/);
      expect(() => materializePlan(recipe, migration({ engine: 'upgrade_service' }))).to.throw(/upgrades with openupgrade/);
    });
  });

  describe('digest and snapshot', () => {
    it('is the SHA-256 of the text as written', () => {
      expect(recipeDigest('')).to.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      expect(recipeDigest('format: 1\n')).to.equal(recipeDigest('format: 1\n'));
      expect(recipeDigest('format: 1\n')).not.to.equal(recipeDigest('format: 1 \n'));
      expect(recipeDigest('name: "Año"')).to.match(/^[0-9a-f]{64}$/);
    });

    it('snapshots a recipe under its key with its text', () => {
      const text = yamlOf(communityHop());
      expect(recipeSnapshot(recipeOf(text), text)).to.deep.equal({ key: 'community.16.0-17.0', sha256: recipeDigest(text), text });
    });
  });
});
