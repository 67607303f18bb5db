import { expect } from 'chai';
import { parseRecipe } from '#services/migrations/recipes/parseRecipe.ts';
import type { RecipeProblem } from '#services/migrations/recipes/recipe.ts';
import { communityHop, enterpriseHop, findingsOf, yamlOf } from './recipeFixture.ts';

type Doc = Record<string, any>;

/** The findings of `doc` after `change`, without their lines (the parse spec checks those). */
function findingsAfter(change: (doc: Doc) => void, base: () => Doc = communityHop): Omit<RecipeProblem, 'line'>[] {
  const doc = base();
  change(doc);
  return findingsOf(doc).map(({ level, path, message }) => ({ level, path, message }));
}
const only = (findings: Omit<RecipeProblem, 'line'>[]) => {
  expect(findings).to.have.length(1, JSON.stringify(findings));
  return expect(findings[0]);
};

describe('recipes: lint', () => {
  it('finds nothing in a well-formed community and enterprise hop', () => {
    expect(findingsOf(communityHop())).to.deep.equal([]);
    expect(findingsOf(enterpriseHop())).to.deep.equal([]);
  });

  describe('route', () => {
    it('allows one major version per hop only', () => {
      only(findingsAfter((doc) => Object.assign(doc, { stem: '16.0-18.0', route: { origin: '16.0', destination: '18.0' } }))).to.deep.include({ level: 'error', path: '/route/destination' });
      only(findingsAfter((doc) => Object.assign(doc, { stem: '17.0-16.0', route: { origin: '17.0', destination: '16.0' } }))).to.deep.include({ level: 'error', path: '/route/destination' });
    });

    it('knows only the versions Forja runs', () => {
      const findings = findingsAfter((doc) => Object.assign(doc, { stem: '15.0-16.0', route: { origin: '15.0', destination: '16.0' } }));
      only(findings).to.deep.equal({ level: 'error', path: '/route/origin', message: '15.0 is not a version Forja runs (16.0, 17.0, 18.0, 19.0)' });
    });

    it('wants the stem to be the route', () => {
      only(findingsAfter((doc) => (doc.stem = '16.0-17.1'))).to.deep.include({ level: 'error', path: '/stem' });
      only(findingsAfter((doc) => (doc.stem = '15.0-16.0'))).to.deep.include({ level: 'error', path: '/stem' });
    });
  });

  describe('ids', () => {
    it('refuses an id used twice, across pre-flight and steps', () => {
      only(findingsAfter((doc) => (doc.steps[5].id = 'source_version'))).to.deep.equal({ level: 'error', path: '/steps/5/id', message: 'step id "source_version" is already used at /preflight/0' });
    });

    it('refuses ids that are not lowercase words', () => {
      for (const id of ['Upgrade', '1st', 'up-grade', '_x']) only(findingsAfter((doc) => (doc.steps[4].id = id))).to.deep.include({ level: 'error', path: '/steps/4/id' });
    });
  });

  describe('checks', () => {
    it('refuses a check of several statements, or of none, before a run fails on it (issue 24, finding 8)', () => {
      only(findingsAfter((doc) => (doc.steps[5].sql = 'commit; create table pwned()'))).to.deep.equal({
        level: 'error',
        path: '/steps/5/sql',
        message: '"verify" holds 2 SQL statements: a check runs one statement that only reads (use a sql step to change the database)',
      });
      only(findingsAfter((doc) => (doc.preflight[0].sql = '-- nothing but a comment'))).to.deep.equal({ level: 'error', path: '/preflight/0/sql', message: '"source_version" has no SQL statement to run' });
    });

    it('takes one statement with a final semicolon, comments, and semicolons inside strings', () => {
      expect(findingsAfter((doc) => (doc.steps[5].sql = "select name from ir_module_module where name <> 'a;b'; -- done"))).to.deep.equal([]);
    });
  });

  describe('variables and when', () => {
    it('refuses unknown variables and an unclosed ${, wherever the string is', () => {
      only(findingsAfter((doc) => (doc.steps[5].sql = 'select ${migration.name}'))).to.deep.include({ level: 'error', path: '/steps/5/sql' });
      only(findingsAfter((doc) => doc.steps[4].args.push('--db=${run.id}'))).to.deep.include({ level: 'error', path: '/steps/4/args/4' });
      only(findingsAfter((doc) => (doc.env.X = '${migration.destination'))).to.deep.equal({ level: 'error', path: '/env/X', message: 'a "${" is not closed by "}"' });
      only(findingsAfter((doc) => (doc.steps[3].when = '${migration.stage} == production'))).to.deep.include({ level: 'error', path: '/steps/3/when' });
    });

    it('knows every listed variable', () => {
      const all = '${migration.origin} ${migration.destination} ${migration.purpose} ${migration.flavor} ${migration.engine} ${migration.slug} ${hop.origin} ${hop.destination} ${paths.upgrade} ${run.number}';
      expect(findingsAfter((doc) => (doc.steps[3].message = all))).to.deep.equal([]);
    });

    it('takes a when of one comparison, == or !=, with bare or quoted words', () => {
      for (const when of ['${migration.purpose} == production', "${migration.engine} != 'upgrade_service'", '"test" == ${migration.purpose}', '${hop.destination}==19.0']) {
        expect(findingsAfter((doc) => (doc.steps[3].when = when))).to.deep.equal([]);
      }
      for (const when of ['${migration.purpose}', 'production', '${migration.purpose} = production', '${migration.purpose} == production && 1 == 1', '${migration.purpose} > 1']) {
        only(findingsAfter((doc) => (doc.steps[3].when = when))).to.deep.include({ level: 'error', path: '/steps/3/when' });
      }
    });

    it('refuses a when that depends on a run-time variable', () => {
      only(findingsAfter((doc) => (doc.steps[3].when = '${run.number} == 1'))).to.deep.equal({
        level: 'error',
        path: '/steps/3/when',
        message: '${run.number} is only known while the run runs; when is decided as the plan is built',
      });
    });

    it('refuses a matches that is not a regular expression', () => {
      only(findingsAfter((doc) => (doc.preflight[0].expect = { matches: '^16\\.0(' }))).to.deep.include({ level: 'error', path: '/preflight/0/expect/matches' });
    });
  });

  describe('order', () => {
    it('refuses fetch and restore missing, twice, or restore before fetch', () => {
      only(findingsAfter((doc) => doc.steps.splice(0, 1))).to.deep.equal({ level: 'error', path: '/steps', message: 'no fetch step: a recipe fetches the source once, first' });
      only(findingsAfter((doc) => doc.steps.splice(1, 1))).to.deep.equal({ level: 'error', path: '/steps', message: 'no restore step: a recipe restores the fetched source once, before it touches the database' });
      only(findingsAfter((doc) => doc.steps.push({ id: 'restore_again', kind: 'restore' }))).to.deep.include({ level: 'error', path: '/steps/8' });
      only(findingsAfter((doc) => ([doc.steps[0], doc.steps[1]] = [doc.steps[1], doc.steps[0]]))).to.deep.equal({
        level: 'error',
        path: '/steps/0',
        message: 'restore runs after fetch',
      });
    });

    it('refuses anything touching the database before restore', () => {
      only(findingsAfter((doc) => doc.steps.splice(1, 0, { id: 'cleanup', kind: 'sql', sql: 'update ir_cron set active = false' }))).to.deep.equal({
        level: 'error',
        path: '/steps/1',
        message: '"cleanup" touches the database: it runs after fetch and restore',
      });
    });

    it('lets a gate or a report come first', () => {
      expect(findingsAfter((doc) => doc.steps.unshift({ id: 'go', kind: 'gate', message: 'Start?' }, { id: 'early_report', kind: 'report' }))).to.deep.equal([]);
    });

    it('refuses a when on fetch or restore', () => {
      only(findingsAfter((doc) => (doc.steps[1].when = '${migration.purpose} == test'))).to.deep.include({ level: 'error', path: '/steps/1/when' });
    });

    it('keeps pre-flight to inspections', () => {
      only(findingsAfter((doc) => doc.preflight.push({ id: 'cleanup', kind: 'sql', sql: 'delete from mail_message' }))).to.deep.include({ level: 'error', path: '/preflight/2/kind' });
      expect(findingsAfter((doc) => doc.preflight.push({ id: 'files', kind: 'filestore', max_missing: 2 }, { id: 'space', kind: 'disk', free_factor: 2.5 }))).to.deep.equal([]);
    });
  });

  describe('engines', () => {
    it('warns when an OpenUpgrade run of the destination does not load openupgrade_framework', () => {
      only(findingsAfter((doc) => (doc.steps[4].args[2] = '--load=base,web'))).to.deep.include({ level: 'warning', path: '/steps/4/args' });
      expect(findingsAfter((doc) => doc.steps[4].args.splice(2, 1, '--load', 'base,web,openupgrade_framework'))).to.deep.equal([]);
      expect(findingsAfter((doc) => doc.steps.splice(5, 0, { id: 'shell', kind: 'erp', version: 'origin', args: ['--stop-after-init'] }))).to.deep.equal([]);
    });

    it('wants an openupgrade recipe to upgrade with an erp run of the destination, not the upgrade service', () => {
      expect(findingsAfter((doc) => (doc.steps[4].version = 'origin'))).to.deep.include({ level: 'error', path: '/steps', message: 'nothing upgrades: an openupgrade recipe needs an erp step of version destination' });
      expect(findingsAfter((doc) => doc.steps.splice(5, 0, { id: 'vendor', kind: 'upgrade_service' }))).to.deep.include({
        level: 'error',
        path: '/steps/5',
        message: 'an openupgrade recipe does not call the upgrade service; use engine upgrade_service',
      });
    });

    it('wants enterprise recipes to use the upgrade service instead of OpenUpgrade', () => {
      expect(findingsAfter((doc) => (doc.engine = 'openupgrade'), enterpriseHop)).to.deep.include({
        level: 'error',
        path: '/engine',
        message: 'enterprise recipes upgrade through the upgrade service: engine upgrade_service',
      });
      only(findingsAfter((doc) => doc.steps.splice(5, 0, { ...communityHop().steps[4], id: 'openupgrade' }), enterpriseHop)).to.deep.include({ level: 'error', path: '/steps/5/args' });
      expect(findingsAfter((doc) => doc.steps.splice(4, 1), enterpriseHop)).to.deep.include({ level: 'error', path: '/steps', message: 'nothing upgrades: an upgrade_service recipe needs an upgrade_service step' });
      expect(findingsAfter((doc) => doc.steps.splice(5, 0, { id: 'custom', kind: 'erp', version: 'destination', args: ['--update=all'] }), enterpriseHop)).to.deep.equal([]);
    });

    it('lets a community recipe use the upgrade service', () => {
      expect(
        findingsAfter((doc) => {
          doc.engine = 'upgrade_service';
          doc.steps[4] = { id: 'upgrade', kind: 'upgrade_service' };
        }),
      ).to.deep.equal([]);
    });

    it('warns without a backup before the upgrade or a check after it', () => {
      only(findingsAfter((doc) => doc.steps.splice(2, 1))).to.deep.include({ level: 'warning', path: '/steps/3' });
      only(findingsAfter((doc) => doc.steps.splice(5, 1))).to.deep.include({ level: 'warning', path: '/steps/4' });
    });
  });

  it('keeps a recipe with warnings usable, and one with errors not', () => {
    const doc = communityHop();
    doc.steps.splice(2, 1);
    const warned = parseRecipe(yamlOf(doc));
    expect(warned).to.have.property('recipe');
    expect(warned.warnings).to.have.length(1);
    doc.stem = '15.0-16.0';
    const refused = parseRecipe(yamlOf(doc));
    expect(refused).not.to.have.property('recipe');
    expect(refused).to.have.property('errors').with.length(1);
    expect(refused.warnings).to.have.length(1);
  });
});
