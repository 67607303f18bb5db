import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';

const BIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));

describe('ERP stand-in: odoo-bin neutralize', function () {
  this.timeout(60_000);
  let connection: string[];
  let url: (database: string) => string;

  before(async () => {
    const cluster = await testCluster();
    const parsed = new URL(cluster.url);
    connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    url = cluster.urlFor;
  });

  const run = (args: string[], version = '17.0') => spawnSync(BIN, args, { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: version } });

  async function query<T extends pg.QueryResultRow>(database: string, sql: string): Promise<T[]> {
    const client = new pg.Client(url(database));
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  /** An addons folder with `acme` (whose neutralization renames the cron) and `acme_off`, never installed, whose file would fail. */
  function addons(acmeSql = `UPDATE ir_cron SET name = 'neutralized by acme';`): string {
    const dir = runDir('standin-neutralize');
    for (const [name, sql] of [['acme', acmeSql], ['acme_off', 'SELECT 1/0;']] as const) {
      mkdirSync(join(dir, name, 'data'), { recursive: true });
      writeFileSync(join(dir, name, '__manifest__.py'), "{'name': 'Acme'}\n");
      writeFileSync(join(dir, name, '__init__.py'), '');
      writeFileSync(join(dir, name, 'data', 'neutralize.sql'), `${sql}\n`);
    }
    // On 16.0/17.0 a given path replaces the default: web and mail are found only with the standard folder named.
    return `${dir},${STANDIN_STANDARD_ADDONS}`;
  }

  async function installed(database: string, path: string): Promise<void> {
    const result = run(['-d', database, '--addons-path', path, '-i', 'web,mail,acme', '--stop-after-init', ...connection]);
    expect(result.status, result.stderr).to.equal(0);
    await query(database, `insert into ir_cron (name) values ('send invoices'); insert into ir_mail_server (name, smtp_host) values ('production', 'smtp.example.com')`);
  }

  const flag = async (database: string) => (await query<{ value: string }>(database, `select value from ir_config_parameter where key = 'database.is_neutralized'`))[0]?.value;
  const banner = async (database: string) => (await query<{ active: boolean }>(database, `select active from ir_ui_view where key = 'web.neutralize_banner'`))[0]?.active;

  it("runs the installed modules' data/neutralize.sql in one go: crons and mail servers off, the flag set, the banner view active", async () => {
    const database = `neutralize_${Date.now()}`;
    const path = addons();
    await installed(database, path);
    expect(await banner(database), 'the banner view is installed inactive').to.equal(false);

    const result = run(['neutralize', '-d', database, '--addons-path', path, ...connection]);
    expect(result.status, result.stderr + result.stdout).to.equal(0);
    expect(result.stdout).to.include(`Starting ${database} database neutralization`).and.include('Neutralization finished');
    expect(await flag(database)).to.equal('true');
    expect(await banner(database)).to.equal(true);
    expect(await query(database, 'select name, active from ir_cron')).to.deep.equal([{ name: 'neutralized by acme', active: false }]);
    const servers = await query<{ name: string; active: boolean; smtp_host: string }>(database, 'select name, active, smtp_host from ir_mail_server order by id');
    expect(servers).to.deep.equal([
      { name: 'production', active: false, smtp_host: 'smtp.example.com' },
      { name: 'neutralization - disable emails', active: true, smtp_host: 'invalid' },
    ]);
  });

  it('takes --addons-path= before the command, as the real command line does', async () => {
    const database = `neutralize_leading_${Date.now()}`;
    const path = addons();
    await installed(database, path);
    const result = run([`--addons-path=${path}`, 'neutralize', '-d', database, ...connection]);
    expect(result.status, result.stderr + result.stdout).to.equal(0);
    expect(await query(database, 'select name from ir_cron')).to.deep.equal([{ name: 'neutralized by acme' }]);
  });

  it('prints the statements between BEGIN; and COMMIT; with --stdout and changes nothing', async () => {
    const database = `neutralize_stdout_${Date.now()}`;
    const path = addons();
    await installed(database, path);
    const result = run(['neutralize', '-d', database, '--addons-path', path, '--stdout', ...connection]);
    expect(result.status, result.stderr).to.equal(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).to.equal('BEGIN;');
    expect(lines.at(-1)).to.equal('COMMIT;');
    expect(result.stdout).to.include(`WHERE key = 'web.neutralize_banner';`).and.include(`UPDATE ir_cron SET name = 'neutralized by acme';`).and.not.include('1/0');
    expect(result.stdout).to.not.include('Starting');
    expect(await flag(database)).to.equal(undefined);
    expect(await banner(database)).to.equal(false);
  });

  it('applies nothing when one statement fails, and exits 1 saying so', async () => {
    const database = `neutralize_failing_${Date.now()}`;
    const path = addons('UPDATE no_such_table SET x = 1;');
    await installed(database, path);
    const result = run(['neutralize', '-d', database, '--addons-path', path, ...connection]);
    expect(result.status).to.equal(1);
    expect(result.stdout).to.include('CRITICAL').and.include('THE DATABASE IS NOT NEUTRALIZED!');
    expect(await flag(database)).to.equal(undefined);
    expect(await query(database, `select active from ir_cron`)).to.deep.equal([{ active: true }]);
  });

  it('needs a database: exit 1', () => {
    const result = run(['neutralize', ...connection]);
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include('Neutralize command needs a database name');
  });

  it('on 19.0 takes only -c, -d and --stdout after the command (argparse, exit 2 otherwise): the rest from the configuration file', async () => {
    const database = `neutralize_19_${Date.now()}`;
    const path = addons();
    await installed(database, path);
    const refused = run(['neutralize', '-d', database, '--addons-path', path, ...connection], '19.0');
    expect(refused.status).to.equal(2);
    expect(refused.stderr).to.include('neutralize: error: unrecognized arguments: --addons-path');
    expect(await flag(database)).to.equal(undefined);

    const config = join(runDir('standin-neutralize-conf'), 'odoo.conf');
    const option = (name: string) => connection[connection.indexOf(name) + 1];
    writeFileSync(config, `[options]\naddons_path = ${path}\ndb_host = ${option('--db_host')}\ndb_port = ${option('--db_port')}\ndb_user = ${option('--db_user')}\ndb_password = ${option('--db_password')}\n`);
    const result = run(['neutralize', '-c', config, '-d', database], '19.0');
    expect(result.status, result.stderr + result.stdout).to.equal(0);
    expect(await flag(database)).to.equal('true');
    expect(await query(database, 'select name from ir_cron')).to.deep.equal([{ name: 'neutralized by acme' }]);
  });

  it('does not exist before 16.0: "Unknown command", exit 1, as odoo/cli/command.py ends', () => {
    const result = run(['neutralize', '-d', 'any', ...connection], '15.0');
    expect(result.status).to.equal(1);
    expect(result.stderr.trim()).to.equal(`Unknown command 'neutralize'`);
    const other = run(['no-such-command', '-d', 'any'], '17.0');
    expect(other.status).to.equal(1);
    expect(other.stderr.trim()).to.equal(`Unknown command 'no-such-command'`);
  });
});
