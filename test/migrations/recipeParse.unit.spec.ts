import { expect } from 'chai';
import { parseDuration } from '#services/migrations/recipes/parseDuration.ts';
import { parseRecipe } from '#services/migrations/recipes/parseRecipe.ts';
import { communityHop, enterpriseHop, findingsOf, recipeOf, yamlOf } from './recipeFixture.ts';

/** The recipe sketch the migration design started from, as written there. */
const SKETCH = String.raw`format: 1
name: "Community 16.0 -> 17.0 (OpenUpgrade)"
flavor: community
stem: "16.0-17.0"
route: { origin: "16.0", destination: "17.0" }
defaults: { timeout: 2h, retries: 0 }
env: { OPENUPGRADE_TARGET_VERSION: "${'$'}{migration.destination}" }
preflight:
  - { id: source_version, kind: check, sql: "select latest_version from ir_module_module where name='base'", expect: { matches: '^16\.0\.' } }
  - { id: pending_states, kind: check, sql: "select count(*) from ir_module_module where state in ('to install','to upgrade','to remove')", expect: { equals: 0 } }
  - { id: coverage, kind: modules, allow_missing: ["theme_*"] }
  - { id: filestore, kind: filestore, max_missing: 0 }
  - { id: space, kind: disk, free_factor: 3 }
steps:
  - { id: fetch, kind: fetch }
  - { id: restore, kind: restore }
  - { id: backup_origin, kind: backup }
  - { id: pre_cleanup, kind: sql, sql: "update ir_cron set active = false" }
  - { id: approve, kind: gate, message: "Check coverage and the origin backup, then approve", when: "${'$'}{migration.purpose} == production" }
  - id: upgrade
    kind: erp
    version: destination
    timeout: 8h
    retries: 1
    args: ["--update=all", "--stop-after-init", "--load=base,web,openupgrade_framework", "--upgrade-path=${'$'}{paths.upgrade}"]
  - { id: verify, kind: check, sql: "select name from ir_module_module where state='installed' and latest_version not like '17.0.%'", expect: { rows: 0 } }
  - { id: disabled_views, kind: check, severity: warning, sql: "select id, name from ir_ui_view where active = false" }
  - { id: dump_result, kind: dump }
  - { id: filestore_result, kind: filestore_archive }
  - { id: report, kind: report }
`;

describe('recipes: parsing', () => {
  it('reads the design’s recipe sketch (artifact kind filestore_archive) without findings', () => {
    const parsed = parseRecipe(SKETCH);
    expect(parsed).to.have.property('recipe');
    expect(parsed.warnings).to.deep.equal([]);
  });

  it('fills what a file may leave out: engine from the flavor, no defaults, no env, no pre-flight', () => {
    const doc = communityHop();
    delete doc.defaults;
    delete doc.env;
    delete doc.preflight;
    const recipe = recipeOf(doc);
    expect(recipe).to.include({ engine: 'openupgrade' });
    expect(recipe).to.deep.include({ defaults: {}, env: {}, preflight: [] });
    expect(recipeOf(enterpriseHop()).engine).to.equal('upgrade_service');
  });

  describe('YAML errors, with their line', () => {
    it('reports a syntax error at its line', () => {
      const text = 'format: 1\nname: x\nsteps:\n  - id: fetch\n   kind: fetch\n';
      const parsed = parseRecipe(text);
      expect(parsed).to.have.property('errors');
      if (!('errors' in parsed)) return;
      expect(parsed.errors[0]).to.include({ level: 'error', line: 5 });
    });

    it('reports an unclosed quote and a duplicate key at their lines', () => {
      const quote = findingsOf('format: 1\nname: "x\nflavor: community\n');
      expect(quote[0]).to.include({ level: 'error' });
      expect(quote[0]?.line).to.be.a('number').within(2, 4);
      const duplicate = findingsOf('format: 1\nname: a\nflavor: community\nname: b\n');
      expect(duplicate[0]).to.include({ level: 'error', line: 4 });
      expect(duplicate[0]?.message).to.match(/unique/i);
    });

    it('refuses several documents in one file, an empty file and aliases to nothing', () => {
      expect(findingsOf('format: 1\n---\nformat: 1\n')).to.deep.equal([{ level: 'error', path: '/', line: 2, column: 1, message: 'a recipe is one YAML document: remove the "---" and what follows' }]);
      expect(findingsOf('')).to.deep.equal([{ level: 'error', path: '/', message: 'a recipe is a YAML mapping: format, name, flavor, stem, route, steps, …' }]);
      expect(findingsOf('format: *one\n')[0]).to.include({ level: 'error', path: '/' });
    });
  });

  describe('schema errors, with their path and line', () => {
    /** The line holding `needle` and the column it starts at: where a finding about it points. */
    const at = (text: string, needle: string): { line: number; column: number } => {
      const lines = text.split('\n');
      const index = lines.findIndex((line) => line.includes(needle));
      return { line: index + 1, column: (lines[index] ?? '').indexOf(needle) + 1 };
    };

    it('names an unknown field by its path, at its line', () => {
      const doc = communityHop();
      doc.steps[4].timout = '8h';
      const text = yamlOf(doc);
      expect(findingsOf(text)).to.deep.equal([{ level: 'error', path: '/steps/4/timout', ...at(text, 'timout:'), message: 'unknown field "timout" here' }]);
    });

    it('names a missing field by the step that lacks it', () => {
      const doc = communityHop();
      delete doc.steps[5].sql;
      const text = yamlOf(doc);
      expect(findingsOf(text)).to.deep.equal([{ level: 'error', path: '/steps/5', ...at(text, 'id: verify'), message: 'missing field "sql"' }]);
    });

    it('lists the known kinds for an unknown one', () => {
      const doc = communityHop();
      doc.steps[2].kind = 'snapshot';
      const [finding] = findingsOf(doc);
      expect(finding).to.include({ level: 'error', path: '/steps/2/kind' });
      expect(finding?.message).to.match(/^must be one of: check, modules, .*filestore_archive, instance, report$/);
    });

    it('tells to quote a version YAML read as a number', () => {
      const text = yamlOf(communityHop()).replace('origin: "16.0"', 'origin: 16.0');
      expect(findingsOf(text)).to.deep.equal([
        { level: 'error', path: '/route/origin', ...at(text, 'origin: 16.0'), message: 'must be a string: quote it (YAML reads 16.0 as the number 16)' },
      ]);
    });

    it('refuses a malformed duration or id, a gate with a timeout, and a format other than 1', () => {
      const doc = communityHop();
      doc.steps[4].timeout = '8 hours';
      doc.steps[2].id = 'Backup';
      doc.steps[3].timeout = '1h';
      doc.format = 2;
      expect(findingsOf(doc).map((finding) => finding.path)).to.have.members(['/format', '/steps/2/id', '/steps/3/timeout', '/steps/4/timeout']);
    });

    it('gives one message for a value of neither allowed type', () => {
      const doc = communityHop();
      doc.steps[5].expect = { equals: true };
      const text = yamlOf(doc);
      expect(findingsOf(text)).to.deep.equal([{ level: 'error', path: '/steps/5/expect/equals', ...at(text, 'equals: true'), message: 'must be string or number' }]);
    });

    it('takes only one expectation per check', () => {
      const doc = communityHop();
      doc.steps[5].expect = { rows: 0, equals: 0 };
      expect(findingsOf(doc)[0]).to.include({ level: 'error', path: '/steps/5/expect' });
    });
  });

  describe('durations', () => {
    it('reads hours, minutes and seconds, alone or together', () => {
      expect([parseDuration('2h'), parseDuration('30m'), parseDuration('45s'), parseDuration('1h30m'), parseDuration('0s')]).to.deep.equal([7200, 1800, 45, 5400, 0]);
    });

    it('refuses anything else', () => {
      expect(['', '2', 'h', '2d', '30m2h', '1.5h', ' 2h'].map(parseDuration)).to.deep.equal([null, null, null, null, null, null, null]);
    });
  });
});
