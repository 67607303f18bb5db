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
    const path = writeLines(folder, 'PadronRGSPer-cli.TXT', rgsLines('P', period, [{ cuit, rate: '3,00' }, { cuit: '20000000002', rate: '1,00' }, { cuit: '2000000000', rate: '1,00' }]));
    const first = padron(['import', '--state', 'B', '--file', path]);
    expect(first.stderr).to.equal('');
    expect(first.status).to.equal(0);
    expect(first.stdout).to.match(new RegExp(`^loaded Buenos Aires \\(B\\) from PadronRGSPer-cli\\.TXT as load \\d+: 2 rates \\(P\\), valid ${period.from} to ${period.to}, layout rgs$`, 'm'));
    expect(first.stdout).to.match(/^ {2}published .*; removed \(marca alta B\): 0; rejected: 1\n {4}invalid CUIT \(not 11 digits\): 1 \(line 3\)\n {2}kept with a warning: 1\n {4}CUIT check digit does not verify: kept: 1 \(line 2\)$/m);
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
    ['a --date that is not a date', ['import', '--state', 'A', '--file', 'x', '--date', '01-07-2026'], {}, /^padron: --date must be a date written YYYY-MM-DD, the first day the file's rates apply \(got "01-07-2026"\)\n$/],
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

  const saltaRates = () => {
    const path = join(folder, 'salta-rates.json');
    writeFileSync(path, JSON.stringify({ CM: { RA: { P: 3.6 }, RB: { P: 1.8 }, SR: { P: 0.9 } }, JU: { RA: { P: 3.6 }, RB: { P: 2.4 }, SR: { P: 1.2 } } }));
    return path;
  };

  it('imports Salta’s file not named “… al DD-MM-YYYY” with --date, and refuses it without', () => {
    const path = writeLines(folder, 'Padrón Contribuyentes AAEE con Riesgo Fiscal.txt', ['CUIT\tDENOMINACION\tACTIVIDADES_ECONOMICAS\tNIVEL_RIESGO_FISCAL', `${cuit}\tACME SA\tJU\tRB`]);
    const without = padron(['import', '--state', 'A', '--file', path], { FORJA_PADRON_SALTA_RATES: saltaRates() });
    expect(without.status).to.equal(2);
    expect(without.stderr).to.equal("padron: cannot read the date of 'Padrón Contribuyentes AAEE con Riesgo Fiscal.txt': Salta's risk file carries none but in a name ending '… al DD-MM-YYYY.txt'; pass --date YYYY-MM-DD, the first day its rates apply\n");
    const dated = padron(['import', '--state', 'A', '--file', path, '--date', '2026-12-01'], { FORJA_PADRON_SALTA_RATES: saltaRates() });
    expect(dated.stderr).to.equal('');
    expect(dated.stdout).to.match(/^loaded Salta \(A\) .* 1 rates \(P\), valid 2026-12-01 to \?, layout salta-risk$/m);
  });

  it('refuses --date where the file carries another period, and a regime that contradicts a loaded file, with exit 2', () => {
    const caba = writeLines(folder, 'ARDJU-dated.TXT', agipLines(period, [{ cuit, perception: '1,00', withholding: '2,00' }]));
    const wrongDate = padron(['import', '--state', 'C', '--file', caba, '--date', '1999-01-01']);
    expect(wrongDate.status).to.equal(2);
    expect(wrongDate.stderr).to.equal(`padron: 'ARDJU-dated.TXT' carries its own period (its rows apply from ${period.from}), and --date 1999-01-01 disagrees with it; leave --date out\n`);
    const loaded = writeLines(folder, 'PadronRGSPer-loaded.TXT', rgsLines('P', period, [{ cuit, rate: '3,00' }]));
    expect(padron(['import', '--state', 'B', '--file', loaded]).status).to.equal(0);
    const contradiction = padron(['import', '--state', 'B', '--file', loaded, '--regime', 'R']);
    expect(contradiction.status).to.equal(2);
    expect(contradiction.stderr).to.equal("padron: 'PadronRGSPer-loaded.TXT' is a P file by its name, but regime R was asked\n");
    expect(contradiction.stdout).to.equal('');
  });

  it('lists a load right after its import, with no projector running (issue 17, item 5)', () => {
    const path = writeLines(folder, 'PadronRGSRet-listed.TXT', rgsLines('R', period, [{ cuit, rate: '0,50' }, { cuit: '20000000002', rate: '1,00' }]));
    const imported = padron(['import', '--state', 'B', '--file', path, '--json']);
    expect(imported.status).to.equal(0);
    const loadId = (JSON.parse(imported.stdout) as { load: { loadId: number } }).load.loadId;
    const listed = padron(['loads']);
    expect(listed.stderr).to.equal('');
    expect(listed.status).to.equal(0);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).to.match(/^load +state +regimes +valid from +valid to +rates +removed +rejected +warned +seconds +published +status +file$/);
    expect(lines[1], 'the newest first').to.match(new RegExp(`^ *${loadId} +B +R +${period.from} +${period.to} +2 +0 +0 +1 +[\\d.]+ +\\S+ \\S+ +published +PadronRGSRet-listed\\.TXT$`));
    expect(listed.stdout).to.match(/ PadronRGSPer-cli\.TXT$/m);
    expect(listed.stdout).to.match(/ Padron Riesgo Fiscal al 01-11-2026\.txt$/m);
    expect(listed.stdout).to.match(/^warned: rows kept although their CUIT check digit does not verify$/m);
    const onlyC = JSON.parse(padron(['loads', '--state', 'C', '--json']).stdout) as { loads: Array<{ state: string; status: string; rows_warned: number }> };
    expect(onlyC.loads.map((load) => load.state)).to.deep.equal(['C']);
    expect(onlyC.loads[0]).to.deep.include({ status: 'published', rows_warned: 0 });
  });
});
