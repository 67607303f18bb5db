import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { writeWheel } from '#test/support/wheel.ts';

const BIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));

describe("ERP stand-in: a module's external Python dependencies", function () {
  this.timeout(120_000);
  let connection: string[];
  let url: (database: string) => string;
  let addons: string;
  let venv: string;

  before(async () => {
    const cluster = await testCluster();
    const parsed = new URL(cluster.url);
    connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    url = cluster.urlFor;
    const dir = runDir('standin-pydeps');
    addons = join(dir, 'addons');
    mkdirSync(join(addons, 'acme_dep'), { recursive: true });
    writeFileSync(join(addons, 'acme_dep', '__init__.py'), '');
    writeFileSync(join(addons, 'acme_dep', '__manifest__.py'), "{\n    'name': 'Acme',\n    'external_dependencies': {'python': ['forjatestdep'], 'bin': []},\n}\n");
    mkdirSync(join(addons, 'acme_plain'));
    writeFileSync(join(addons, 'acme_plain', '__init__.py'), '');
    writeFileSync(join(addons, 'acme_plain', '__manifest__.py'), "{'name': 'Plain', 'external_dependencies': {}}\n");
    venv = join(dir, 'venv');
    const made = spawnSync('python3', ['-m', 'venv', venv], { encoding: 'utf8' });
    expect(made.status, made.stderr).to.equal(0);
    const wheels = join(dir, 'wheels');
    mkdirSync(wheels);
    writeWheel(wheels, 'forjatestdep', '1.0');
    const pip = spawnSync(join(venv, 'bin/python'), ['-m', 'pip', 'install', '--no-input', '--no-index', '--find-links', wheels, 'forjatestdep'], { encoding: 'utf8' });
    expect(pip.status, pip.stderr).to.equal(0);
  });

  const installed = async (database: string) => {
    const client = new pg.Client(url(database));
    await client.connect();
    const { rows } = await client.query<{ name: string }>(`select name from ir_module_module where state = 'installed' order by name`);
    await client.end();
    return rows.map((row) => row.name);
  };

  for (const [version, reason] of [
    ['16.0', 'Python library not installed: forjatestdep'],
    ['17.0', "External dependency 'forjatestdep' not installed: No package metadata was found for forjatestdep"],
  ] as const) {
    it(`${version}: refuses to install a module whose dependency its interpreter lacks, naming it, and installs nothing`, async () => {
      const database = `standin_pydep_${version.replace('.', '')}_${Date.now()}`;
      const result = spawnSync(BIN, ['-d', database, '--addons-path', addons, '-i', 'acme_plain,acme_dep', '--stop-after-init', ...connection], {
        encoding: 'utf8',
        env: { ...process.env, FORJA_STANDIN_VERSION: version },
      });
      expect(result.status).to.equal(255);
      expect(result.stdout).to.include(`CRITICAL ${database} odoo.service.server: Failed to initialize database \`${database}\`.`);
      expect(result.stdout).to.include(`odoo.exceptions.UserError: Unable to install module "acme_dep" because an external dependency is not met: ${reason}`);
      expect(await installed(database)).to.deep.equal([]);
    });
  }

  it('installs it when run by an interpreter that has the package: <venv>/bin/python odoo-bin', async () => {
    const database = `standin_pydep_venv_${Date.now()}`;
    const result = spawnSync(join(venv, 'bin/python'), [BIN, '-d', database, '--addons-path', addons, '-i', 'acme_dep', '--stop-after-init', ...connection], { encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).to.equal(0);
    expect(await installed(database)).to.deep.equal(['acme_dep', 'base']);
  });

  it('finds an importable module of that name too, as the real ERP falls back to importing it', async () => {
    const site = runDir('standin-pydeps-path');
    mkdirSync(join(site, 'forjatestdep'));
    writeFileSync(join(site, 'forjatestdep', '__init__.py'), '');
    const database = `standin_pydep_path_${Date.now()}`;
    const result = spawnSync(BIN, ['-d', database, '--addons-path', addons, '-i', 'acme_dep', '--stop-after-init', ...connection], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: site },
    });
    expect(result.status, result.stdout + result.stderr).to.equal(0);
    expect(await installed(database)).to.deep.equal(['acme_dep', 'base']);

    // Updated (-u) by an interpreter that lacks it: refused as the real button_upgrade refuses.
    const update = spawnSync(BIN, ['-d', database, '--addons-path', addons, '-u', 'acme_dep', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '18.0' } });
    expect(update.status).to.equal(255);
    expect(update.stdout).to.include(`Unable to upgrade module "acme_dep" because an external dependency is not met: External dependency 'forjatestdep' not installed`);
  });
});
