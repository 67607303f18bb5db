import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { createPadronDatabase, type PadronDatabase } from './support/padronDatabase.ts';
import { agipLines, fileFolder, monthPeriod, rgsLines, validCuit, writeLines } from './support/padronFiles.ts';

function run(script: string, args: string[], env: Record<string, string | undefined>) {
  return spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', FORJA_PADRON_SALTA_RATES: undefined, ...env }, encoding: 'utf8' });
}

describe('padrón command line', function () {
  this.timeout(120_000);
  let db: PadronDatabase;
  const folder = fileFolder();
  const period = monthPeriod();
  const cuit = validCuit(2077777777);
  const padron = (args: string[], env: Record<string, string | undefined> = {}) => run('services/padron/cli.ts', args, { DATABASE_URL: db.url, ...env });

  before(async () => {
    db = await createPadronDatabase('padron_cli');
  });
  after(() => db.close());

  it('imports a file and prints what it loaded, then refuses the same file with exit 0', () => {
    const path = writeLines(folder, 'PadronRGSPer-cli.TXT', rgsLines('P', period, [{ cuit, rate: '3,00' }, { cuit: '20000000002', rate: '1,00' }]));
    const first = padron(['import', '--state', 'B', '--file', path]);
    expect(first.stderr).to.equal('');
    expect(first.status).to.equal(0);
    expect(first.stdout).to.match(new RegExp(`^loaded Buenos Aires \\(B\\) from PadronRGSPer-cli\\.TXT as load \\d+: 1 rates \\(P\\), valid ${period.from} to ${period.to}, layout rgs$`, 'm'));
    expect(first.stdout).to.match(/^ {4}invalid check digit: 1 \(line 2\)$/m);
    expect(first.stdout).to.match(/^ {2}[\d.]+ s, [\d,]+ rates\/s, peak RSS \d+ MB$/m);
    const again = padron(['import', '--state', 'b', '--file', path]);
    expect(again.status).to.equal(0);
    expect(again.stdout).to.match(/^unchanged: this file \(sha256 [0-9a-f]{12}…\) was already loaded as load \d+ .*; nothing changed\n$/);
  });

  it('prints the outcome as JSON with --json', () => {
    const path = writeLines(folder, 'ARDJU-cli.TXT', agipLines(period, [{ cuit, perception: '1,00', withholding: '2,00' }]));
    const result = padron(['import', '--state', 'C', '--file', path, '--json']);
    expect(result.status).to.equal(0);
    const outcome = JSON.parse(result.stdout) as { status: string; load: { rowsLoaded: number; regimes: string[] }; peakRssMb: number };
    expect(outcome).to.deep.include({ status: 'loaded' });
    expect(outcome.load).to.deep.include({ rowsLoaded: 2, regimes: ['P', 'R'] });
    expect(outcome.peakRssMb).to.be.above(0);
  });

  const saltaPath = () => writeLines(folder, 'Padron Riesgo Fiscal al 01-11-2026.txt', ['CUIT\tDENOMINACION\tACTIVIDADES_ECONOMICAS\tNIVEL_RIESGO_FISCAL', `${cuit}\tACME SA\tCM\tRA`]);

  it('refuses Salta’s risk file without a rate table, explaining the setting', () => {
    const result = padron(['import', '--state', 'A', '--file', saltaPath()]);
    expect(result.status).to.equal(2);
    expect(result.stderr).to.match(/^padron: 'Padron Riesgo Fiscal al 01-11-2026\.txt' is Salta's risk file, which has no rates: .*: set FORJA_PADRON_SALTA_RATES to a YAML or JSON file mapping CM\/JU × RA\/RB\/SR to P and R rates \(see README, Padrón\)\n$/);
  });

  it('imports Salta’s risk file with a YAML rate table', () => {
    const rates = join(folder, 'salta-rates.yaml');
    writeFileSync(rates, ['CM: {RA: {P: 3.6, R: 2.6}, RB: {P: 1.8, R: 1.3}, SR: {P: 0.9, R: 0.5}}', 'JU: {RA: {P: 3.6, R: 2.6}, RB: {P: 2.4, R: 1.5}, SR: {P: 1.2, R: 0.8}}'].join('\n'));
    const result = padron(['import', '--state', 'A', '--file', saltaPath()], { FORJA_PADRON_SALTA_RATES: rates });
    expect(result.stderr).to.equal('');
    expect(result.stdout).to.match(/^loaded Salta \(A\) .* 2 rates \(P, R\), valid 2026-11-01 to \?, layout salta-risk$/m);
  });

  const refusals: Array<[string, string[], Record<string, string>, RegExp]> = [
    ['an unknown state', ['import', '--state', 'Q', '--file', 'x'], {}, /^padron: unknown state "Q"; one of C \(CABA\), B \(Buenos Aires\), T \(Tucuman\), E \(Entre Rios\), S \(Santa Fe\), A \(Salta\), X \(Cordoba\)\n$/],
    ['a missing file', ['import', '--state', 'C', '--file', '/nonexistent/ARDJU.TXT'], {}, /^padron: file not found: \/nonexistent\/ARDJU\.TXT\n$/],
    ['a missing --file', ['import', '--state', 'C'], {}, /^padron: import needs --state and --file\nusage: npm run padron -- <command>/],
    ['an unknown regime', ['import', '--state', 'B', '--file', 'x', '--regime', 'Z'], {}, /^padron: unknown regime "Z"; P \(perception\) or R \(withholding\)\n$/],
    ['an unknown argument', ['import', '--state', 'B', '--force'], {}, /^padron: unknown argument --force\n/],
    ['an unknown command', ['purge'], {}, /^padron: unknown command "purge"\n/],
    ['an unreadable Salta rate table', ['import', '--state', 'A', '--file', 'x'], { FORJA_PADRON_SALTA_RATES: '/nonexistent/rates.yaml' }, /^padron: FORJA_PADRON_SALTA_RATES: cannot read \/nonexistent\/rates\.yaml: ENOENT/],
  ];
  for (const [what, args, env, message] of refusals) {
    it(`refuses ${what} with one line and exit code 2`, () => {
      const result = padron(args, env);
      expect(result.stderr).to.match(message);
      expect(result.status).to.equal(2);
    });
  }

  it('refuses a file of another layout with exit code 2', () => {
    const path = writeLines(folder, 'cordoba-as-b.txt', [`P;22062026;01072026;31072026;${cuit};N;X;N;00,00`]);
    const result = padron(['import', '--state', 'B', '--file', path, '--regime', 'P']);
    expect(result.status).to.equal(2);
    expect(result.stderr).to.equal("padron: 'cordoba-as-b.txt' looks like Córdoba's LUA layout (9 fields, `X` in field 7), not Buenos Aires' RGS layout\n");
  });

  it('refuses a bad setting with exit code 2', () => {
    const result = padron(['serve'], { FORJA_PADRON_RATE_LIMIT: 'many' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.match(/^configuration: FORJA_PADRON_RATE_LIMIT must be integer \(got "many"; /);
  });

  it('fails with one line and exit code 1 when the database cannot be reached', () => {
    const path = writeLines(folder, 'PadronRGSPer-nodb.TXT', rgsLines('P', period, [{ cuit, rate: '3,00' }]));
    const result = padron(['import', '--state', 'B', '--file', path], { DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none' });
    expect(result.status).to.equal(1);
    expect(result.stderr.trim()).to.equal('padron import: cannot start: cannot reach PostgreSQL at 127.0.0.1:1/none (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:1');
  });

  it('lists loads from the padron_loads read model once the projector caught up', () => {
    const before = padron(['loads']);
    expect(before.status).to.equal(0);
    expect(before.stdout).to.match(/note: the padron_loads read model has not run yet; run the projector/);
    expect(run('projections/rebuild.ts', ['padron_loads'], { DATABASE_URL: db.url }).status).to.equal(0);
    const after = padron(['loads']);
    expect(after.stdout).to.match(/^load +state +regimes +valid from +valid to +rates +removed +rejected +seconds +published +file$/m);
    expect(after.stdout).to.match(/^ +\d+ +B +P +\S+ +\S+ +1 +0 +1 .* PadronRGSPer-cli\.TXT$/m);
    expect(after.stdout).to.match(/ Padron Riesgo Fiscal al 01-11-2026\.txt$/m);
    expect(after.stdout).to.not.match(/note:/);
    const onlyC = JSON.parse(padron(['loads', '--state', 'C', '--json']).stdout) as { loads: Array<{ state: string }>; lag: number };
    expect(onlyC.loads.map((load) => load.state)).to.deep.equal(['C']);
    expect(onlyC.lag).to.equal(0);
  });
});
