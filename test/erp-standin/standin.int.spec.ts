import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { freePort } from '#shared/local/freePort.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';

const BIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));

describe('ERP stand-in (odoo-bin)', function () {
  this.timeout(60_000);
  let connection: string[];
  let url: (database: string) => string;

  before(async () => {
    const cluster = await testCluster();
    const parsed = new URL(cluster.url);
    connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    url = cluster.urlFor;
  });

  const installed = async (database: string) => {
    const client = new pg.Client(url(database));
    await client.connect();
    const { rows } = await client.query<{ name: string }>(`select name from ir_module_module where state = 'installed' order by name`);
    await client.end();
    return rows.map((row) => row.name);
  };

  const stateOf = async (database: string, module: string) => {
    const client = new pg.Client(url(database));
    await client.connect();
    const { rows } = await client.query<{ state: string }>('select state from ir_module_module where name = $1', [module]);
    await client.end();
    return rows[0]?.state;
  };

  it('creates the database, installs modules into ir_module_module and stops after init', async () => {
    const database = `standin_${Date.now()}`;
    const logfile = join(tmpdir(), `${database}.log`);
    const result = spawnSync(BIN, ['-d', database, '-i', 'sale,stock', '--stop-after-init', '--logfile', logfile, ...connection], { encoding: 'utf8', cwd: tmpdir() });
    expect(result.status, result.stderr).to.equal(0);
    expect(await installed(database)).to.deep.equal(['base', 'sale', 'stock']);
    const log = readFileSync(logfile, 'utf8');
    expect(log).to.match(/INFO standin_\d+ odoo\.modules\.loading: module sale: installed/);
    expect(log).to.include('Initiating shutdown (--stop-after-init)');

    const update = spawnSync(BIN, ['-d', database, '-u', 'sale', '-i', 'crm', '--stop-after-init', ...connection], { encoding: 'utf8' });
    expect(update.status).to.equal(0);
    expect(update.stdout).to.include('module sale: updated');
    expect(await installed(database)).to.deep.equal(['base', 'crm', 'sale', 'stock']);
  });

  it('ignores a module it cannot find, logging it as the real ERP does, and still exits 0', async () => {
    const database = `standin_unknown_${Date.now()}`;
    const result = spawnSync(BIN, ['-d', database, '-i', 'base,sale,no_such_module', '--stop-after-init', ...connection], { encoding: 'utf8' });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.match(new RegExp(`WARNING ${database} odoo\\.modules\\.loading: invalid module names, ignored: no_such_module\n`));
    expect(await installed(database)).to.deep.equal(['base', 'sale']);
    expect(await stateOf(database, 'no_such_module')).to.equal(undefined);
    expect(await stateOf(database, 'crm'), 'a standard module it knows but was not asked for').to.equal('uninstalled');
  });

  it('installs addons found in --addons-path folders (by __manifest__.py or the older __openerp__.py), not other folders', async () => {
    const addons = runDir('standin-addons');
    for (const [folder, manifest] of [['acme_sale', '__manifest__.py'], ['acme_legacy', '__openerp__.py'], ['acme_docs', 'README.md']] as const) {
      mkdirSync(join(addons, folder));
      writeFileSync(join(addons, folder, manifest), "{'name': 'Acme'}\n");
    }
    writeFileSync(join(addons, 'README.md'), 'Acme addons\n');
    // The real ERP takes a folder as an addons path only when a module in it has __init__.py too (config.py, _is_addons_path).
    writeFileSync(join(addons, 'acme_sale', '__init__.py'), '');
    const database = `standin_addons_${Date.now()}`;
    const args = ['-d', database, '--addons-path', addons, '--stop-after-init', ...connection];
    const result = spawnSync(BIN, [...args, '-i', 'acme_sale,acme_legacy,acme_docs'], { encoding: 'utf8' });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.include('invalid module names, ignored: acme_docs');
    expect(await installed(database)).to.deep.equal(['acme_legacy', 'acme_sale', 'base']);

    mkdirSync(join(addons, 'acme_later'));
    writeFileSync(join(addons, 'acme_later', '__manifest__.py'), "{'name': 'Acme later'}\n");
    const update = spawnSync(BIN, [...args, '-u', 'acme_sale,acme_later'], { encoding: 'utf8' });
    expect(update.status, update.stderr).to.equal(0);
    expect(update.stdout).to.include('module acme_sale: updated').and.include('module acme_later: not installed, nothing to update');
    expect(await stateOf(database, 'acme_later'), '-u lists a new addon but does not install it').to.equal('uninstalled');
  });

  it('refuses an --addons-path directory that does not exist, as the real ERP does', () => {
    const result = spawnSync(BIN, ['-d', 'x', '--addons-path', '/nonexistent/addons', '-i', 'sale'], { encoding: 'utf8' });
    expect(result.status).to.equal(2);
    expect(result.stderr.trim()).to.equal("odoo-bin (stand-in): option --addons-path: no such directory: '/nonexistent/addons'");
  });

  it('serves /web/health and /web/login until SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(BIN, ['-d', `standin_http_${Date.now()}`, '--http-port', String(port), ...connection], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const health = `http://127.0.0.1:${port}/web/health`;
      await waitUntil(() => fetch(health).then((r) => r.ok, () => false), 'the stand-in to answer', 20_000);
      expect(await (await fetch(health)).json()).to.include({ status: 'pass' });
      expect(await (await fetch(`http://127.0.0.1:${port}/web/login`)).text()).to.include('ERP stand-in');
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses bad arguments with exit 2 and one line', () => {
    const noDb = spawnSync(BIN, ['-i', 'sale'], { encoding: 'utf8' });
    expect(noDb.status).to.equal(2);
    expect(noDb.stderr.trim()).to.equal('odoo-bin (stand-in): -d/--database is required');
    const badModule = spawnSync(BIN, ['-d', 'x', '-i', 'Sale;drop'], { encoding: 'utf8' });
    expect(badModule.status).to.equal(2);
    expect(badModule.stderr.trim()).to.equal('odoo-bin (stand-in): -i: "Sale;drop" is not a module name');
  });

  it('exits 1 and logs why when the database server cannot be reached', () => {
    const result = spawnSync(BIN, ['-d', 'x', '--stop-after-init', '--db_host', '127.0.0.1', '--db_port', '1', '--db_user', 'nobody'], { encoding: 'utf8' });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.match(/cannot initialize database x: connect ECONNREFUSED 127\.0\.0\.1:1/);
    expect(result.stdout).to.match(/ERROR x odoo\.sql_db: cannot initialize database x/);
  });
});
