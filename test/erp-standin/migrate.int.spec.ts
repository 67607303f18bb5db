import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { STANDIN_OPENUPGRADE, STANDIN_STANDARD_ADDONS } from '#services/erp-standin/standinPaths.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';

const BIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/upgrade-16.0-17.0', import.meta.url));
const OPENUPGRADE = ['--load', 'base,web,openupgrade_framework', '-u', 'all', '--stop-after-init'];

/** The stand-in as a migration step drives it: a 16.0 database, then the 17.0 stand-in with an upgrade path. */
describe('ERP stand-in migrations (OpenUpgrade-style -u all --upgrade-path)', function () {
  this.timeout(60_000);
  let connection: string[];
  let url: (database: string) => string;
  let addons16: string;
  let addons17: string;
  let work: string;

  before(async () => {
    const cluster = await testCluster();
    const parsed = new URL(cluster.url);
    connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    url = cluster.urlFor;
    work = runDir('standin-migrate');
    [addons16, addons17] = ['16.0', '17.0'].map((series) => {
      const dir = join(work, `addons-${series}`);
      mkdirSync(join(dir, 'acme_extra'), { recursive: true });
      writeFileSync(join(dir, 'acme_extra', '__init__.py'), '');
      writeFileSync(join(dir, 'acme_extra', '__manifest__.py'), `{'name': 'Acme extra', 'version': '${series}.1.0.0', 'depends': ['sale']}\n`);
      // On 16.0 and 17.0 an addons path replaces the default one: the standard modules must be on it; and OpenUpgrade's folder, whose framework --load names.
      return `${dir},${STANDIN_STANDARD_ADDONS},${STANDIN_OPENUPGRADE}`;
    }) as [string, string];
  });

  const standin = (version: string | undefined, args: string[]) => {
    const env = { ...process.env, FORJA_STANDIN_VERSION: version };
    if (version === undefined) delete env.FORJA_STANDIN_VERSION;
    return spawnSync(BIN, [...args, ...connection], { encoding: 'utf8', env });
  };

  const query = async <Row extends object>(database: string, sql: string): Promise<Row[]> => {
    const client = new pg.Client(url(database));
    await client.connect();
    try {
      return (await client.query<Row>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const versions = async (database: string) =>
    Object.fromEntries((await query<{ name: string; latest_version: string }>(database, `select name, latest_version from ir_module_module where state = 'installed' order by name`)).map((row) => [row.name, row.latest_version]));
  const trace = async (database: string) =>
    (await query<{ module: string; script: string; seen_version: string }>(database, 'select module, script, seen_version from migration_trace order by id')).map((row) => `${row.module} ${row.script} ${row.seen_version}`);
  const traced = async (database: string) => (await query<{ exists: boolean }>(database, `select to_regclass('migration_trace') is not null as exists`))[0]?.exists;

  /** A database the 16.0 stand-in installed sale, stock, crm and an OCA-versioned addon into. */
  const database16 = (): string => {
    const database = `migrate_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
    const result = standin('16.0', ['-d', database, '--addons-path', addons16, '-i', 'sale,stock,crm,acme_extra', '--stop-after-init']);
    expect(result.status, result.stderr).to.equal(0);
    return database;
  };
  /** A copy of the fixture upgrade path that a test may change. */
  const upgradePath = (): string => {
    const dir = join(work, `scripts-${Date.now()}-${Math.floor(Math.random() * 1e6)}`);
    cpSync(FIXTURE, dir, { recursive: true });
    return dir;
  };
  const migrate = (database: string, version: string, path: string, logfile = join(work, `${database}.log`)) =>
    standin(version, ['-d', database, '--addons-path', addons17, '--upgrade-path', path, '--logfile', logfile, ...OPENUPGRADE]);

  it('installs at its version: latest_version is the series and the manifest version, as the real ERP adapts it', async () => {
    const database = database16();
    expect(await versions(database)).to.deep.equal({ acme_extra: '16.0.1.0.0', base: '16.0.1.3', crm: '16.0.1.0', sale: '16.0.1.0', stock: '16.0.1.0' });
  });

  it('migrates every module to 17.0, running pre-, then the version bump, then post- scripts per module, and end- scripts last', async () => {
    const database = database16();
    const logfile = join(work, `${database}.log`);
    const result = standin('17.0', ['-d', database, `--addons-path=${addons17}`, `--upgrade-path=${FIXTURE}`, '--load=base,web,openupgrade_framework', '--update=all', '--stop-after-init', `--logfile=${logfile}`]);
    expect(result.status, result.stderr).to.equal(0);
    expect(await versions(database)).to.deep.equal({ acme_extra: '17.0.1.0.0', base: '17.0.1.3', crm: '17.0.1.0', sale: '17.0.1.0', stock: '17.0.1.0' });
    expect(await trace(database)).to.deep.equal([
      'base pre-migration 16.0.1.3',
      'base post-migration 17.0.1.3',
      'acme_extra post-migration 17.0.1.0.0',
      'crm pre-migration 16.0.1.0',
      'crm post-migration 17.0.1.0',
      'sale pre-migration 16.0.1.0',
      'sale post-migration 17.0.1.0',
      'stock post-migration 17.0.1.0',
      'base end-migration 17.0.1.3',
      'sale end-migration 17.0.1.0',
    ]);
    const log = readFileSync(logfile, 'utf8');
    const line = (level: string, logger: string, message: string) => new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} \\d+ ${level} ${database} ${logger}: ${message.replace(/[[\]$.>]/g, '\\$&')}$`, 'm');
    expect(log).to.match(line('INFO', 'odoo.modules.migration', 'module sale: Running migration [>17.0.1.0] pre-migration'));
    expect(log).to.match(line('INFO', 'odoo.modules.migration', 'module sale: Running migration [17.0.1.0>] post-migration'));
    expect(log).to.match(line('INFO', 'odoo.modules.migration', 'module sale: Running migration [$17.0.1.0] end-migration'));
    expect(log).to.match(line('INFO', 'odoo.modules.loading', 'module stock: migrated from 16.0.1.0 to 17.0.1.0'));
    expect(log).to.include('Initiating shutdown (--stop-after-init)');

    const again = migrate(database, '17.0', FIXTURE);
    expect(again.status, again.stderr).to.equal(0);
    expect((await trace(database)).length, 'a migrated database is not migrated twice').to.equal(10);
  });

  it('refuses to skip a version (16.0 to 18.0) before changing anything, exit 1', async () => {
    const database = database16();
    const logfile = join(work, `${database}.log`);
    const result = migrate(database, '18.0', FIXTURE, logfile);
    expect(result.status).to.equal(1);
    const message = `cannot migrate database ${database} from 16.0 to 18.0: skipping versions is not supported, migrate one major version at a time`;
    expect(result.stderr.trim()).to.equal(`odoo-bin (stand-in): ${message}`);
    expect(readFileSync(logfile, 'utf8')).to.include(`ERROR ${database} odoo.modules.migration: ${message}`).and.include('CRITICAL');
    expect(Object.values(await versions(database)).every((version) => version.startsWith('16.0.'))).to.equal(true);
    expect(await traced(database)).to.equal(false);
  });

  it('refuses an upgrade path that does not exist or holds no module script folders: "is not a valid upgrade directory", exit 2', async () => {
    const database = database16();
    const empty = join(work, 'not-scripts');
    mkdirSync(join(empty, 'sale', '17.0.1.0'), { recursive: true });
    writeFileSync(join(empty, 'sale', 'notes.sql'), 'select 1;\n');
    for (const path of [join(work, 'no-such-folder'), empty]) {
      const logfile = join(work, `${database}-${path.length}.log`);
      const result = migrate(database, '17.0', path, logfile);
      expect(result.status).to.equal(2);
      expect(result.stderr).to.include(`option --upgrade-path: the path '${path}' is not a valid upgrade directory`);
      expect(readFileSync(logfile, 'utf8')).to.match(new RegExp(`ERROR ${database} odoo\\.tools\\.config: option --upgrade-path: .* is not a valid upgrade directory`));
    }
    expect((await versions(database)).base).to.equal('16.0.1.3');
  });

  it('refuses, changing nothing, when openupgrade_framework is in --load but not on the addons path', async () => {
    const database = database16();
    const before = await versions(database);
    const logfile = join(work, `${database}-noframework.log`);
    const withoutOpenUpgrade = addons17.split(',').filter((dir) => dir !== STANDIN_OPENUPGRADE).join(',');
    const result = standin('17.0', ['-d', database, '--addons-path', withoutOpenUpgrade, '--upgrade-path', FIXTURE, '--logfile', logfile, ...OPENUPGRADE]);
    expect(result.status).to.not.equal(0);
    expect(readFileSync(logfile, 'utf8')).to.include('Failed to load server-wide module `openupgrade_framework`: it is not on the addons path');
    expect(await versions(database)).to.deep.equal(before);
  });

  it('migrates nothing, and says so, without openupgrade_framework in --load or without an upgrade path', async () => {
    const database = database16();
    const before = await versions(database);
    const logfile = join(work, `${database}.log`);
    const noFramework = standin('17.0', ['-d', database, '--addons-path', addons17, '--upgrade-path', FIXTURE, '--load', 'base,web', '-u', 'all', '--stop-after-init', '--logfile', logfile]);
    expect(noFramework.status, 'as the real ERP, which logs the failed load and goes on').to.equal(0);
    expect(readFileSync(logfile, 'utf8')).to.include(`ERROR ${database} odoo.modules.migration: Couldn't load module openupgrade_framework (not in --load=base,web): no module migrated`);
    const noPath = standin('17.0', ['-d', database, '--addons-path', addons17, '-u', 'all', '--stop-after-init']);
    expect(noPath.status).to.equal(0);
    expect(noPath.stdout).to.include(`WARNING ${database} odoo.modules.migration: database ${database} has modules at 16.0 and this server is 17.0, but no --upgrade-path was given: no module migrated`);
    expect(await versions(database), 'a post-check of module versions sees it').to.deep.equal(before);
    expect(await traced(database)).to.equal(false);
  });

  it('commits module by module: a failing post script leaves a half-migrated database, and a second run finishes it', async () => {
    const database = database16();
    const path = upgradePath();
    const broken = join(path, 'sale', '17.0.1.0', 'post-zz-fix-orders.sql');
    writeFileSync(broken, 'update sale_order_that_does_not_exist set state = 1;\n');
    const logfile = join(work, `${database}.log`);
    const failed = migrate(database, '17.0', path, logfile);
    expect(failed.status).to.equal(1);
    expect(await versions(database)).to.deep.equal({ acme_extra: '17.0.1.0.0', base: '17.0.1.3', crm: '17.0.1.0', sale: '16.0.1.0', stock: '16.0.1.0' });
    expect(await trace(database), "sale's pre-migration rolled back with its failed post script").to.deep.equal([
      'base pre-migration 16.0.1.3',
      'base post-migration 17.0.1.3',
      'acme_extra post-migration 17.0.1.0.0',
      'crm pre-migration 16.0.1.0',
      'crm post-migration 17.0.1.0',
    ]);
    const log = readFileSync(logfile, 'utf8');
    expect(log).to.include(`ERROR ${database} odoo.sql_db: bad query: ${broken}\nERROR: relation "sale_order_that_does_not_exist" does not exist`);
    expect(log).to.include(`ERROR ${database} odoo.modules.migration: module sale: rolled back, it stays at 16.0.1.0`);
    expect(log).to.include(`CRITICAL ${database} odoo.service.server: Failed to initialize database \`${database}\`.`);

    writeFileSync(broken, "insert into migration_trace (module, script, seen_version) values ('sale', 'post-zz-fix-orders', 'fixed');\n");
    const resumed = migrate(database, '17.0', path, logfile);
    expect(resumed.status, resumed.stderr).to.equal(0);
    expect(Object.values(await versions(database)).every((version) => version.startsWith('17.0.'))).to.equal(true);
    expect((await trace(database)).slice(5), "base's end script ran in no run: end scripts run for the modules a run migrates, as on the real ERP").to.deep.equal([
      'sale pre-migration 16.0.1.0',
      'sale post-migration 17.0.1.0',
      'sale post-zz-fix-orders fixed',
      'stock post-migration 17.0.1.0',
      'sale end-migration 17.0.1.0',
    ]);
    expect(readFileSync(logfile, 'utf8')).to.include(`INFO ${database} odoo.modules.loading: module crm: already at 17.0.1.0, not migrated again`);
  });

  it('ends the statement of a long script when it gets SIGTERM, rolling back that module', async () => {
    const database = database16();
    const path = upgradePath();
    writeFileSync(join(path, 'crm', '17.0.1.0', 'pre-a-slow.sql'), 'select pg_sleep(60);\n');
    const env = { ...process.env, FORJA_STANDIN_VERSION: '17.0' };
    const child = spawn(BIN, ['-d', database, '--addons-path', addons17, '--upgrade-path', path, ...OPENUPGRADE, ...connection], { env, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const sleeping = async () => (await query<{ pid: number }>('postgres', `select pid from pg_stat_activity where datname = '${database}' and query like 'select pg_sleep%'`)).length;
      await waitUntil(async () => (await sleeping()) > 0, 'the slow script to run', 20_000);
      child.kill('SIGTERM');
      expect(await exited).to.equal(143);
      await waitUntil(async () => (await sleeping()) === 0, 'the slow statement to end', 5_000);
      expect(await versions(database)).to.include({ base: '17.0.1.3', crm: '16.0.1.0' });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('without FORJA_STANDIN_VERSION installs at 1.0 as before and refuses to migrate', async () => {
    const database = `migrate_unversioned_${Date.now()}`;
    const installed = standin(undefined, ['-d', database, '-i', 'sale', '--stop-after-init']);
    expect(installed.status, installed.stderr).to.equal(0);
    expect(await versions(database)).to.deep.equal({ base: '1.0', sale: '1.0' });
    const refused = standin(undefined, ['-d', database, '--upgrade-path', FIXTURE, ...OPENUPGRADE]);
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.include('FORJA_STANDIN_VERSION is not set');
  });

  it('refuses a FORJA_STANDIN_VERSION that is not a series such as 17.0', () => {
    const result = standin('17', ['-d', 'x', '-i', 'sale']);
    expect(result.status).to.equal(2);
    expect(result.stderr.trim()).to.equal('odoo-bin (stand-in): FORJA_STANDIN_VERSION: "17" is not an ERP version such as 17.0');
  });
});
