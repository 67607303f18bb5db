import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { freePort } from '#shared/local/freePort.ts';
import { hashMasterPassword } from '#services/erp-standin/masterPassword.ts';
import { databaseManagerOpen } from '#services/executor/jobs/healthCheck.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';

const BIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));

/** The database manager as the real ERP serves it (addons/web/controllers/database.py), attacked with guessed master passwords. */
describe('ERP stand-in database manager (/web/database/*)', function () {
  this.timeout(60_000);
  const home = runDir('standin-dbm');
  const children: ChildProcess[] = [];
  let connection: string[];
  let exists: (database: string) => Promise<boolean>;

  before(async () => {
    const cluster = await testCluster();
    const parsed = new URL(cluster.url);
    connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    exists = async (database) => {
      const client = new pg.Client(cluster.urlFor('postgres'));
      await client.connect();
      try {
        return ((await client.query('select 1 from pg_database where datname = $1', [database])).rowCount ?? 0) > 0;
      } finally {
        await client.end();
      }
    };
  });
  after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  /** Starts the stand-in serving a fresh database; HOME is an empty folder, so no ~/.odoorc is read. */
  async function serve(prefix: string, args: string[] = []) {
    const database = `${prefix}_${Date.now()}`;
    const port = await freePort();
    const child = spawn(BIN, ['-d', database, '--http-port', String(port), ...connection, ...args], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, HOME: home } });
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    // /web/health answers before the database is loaded; /web/login waits for it, as on the real ERP.
    await waitUntil(() => fetch(`${base}/web/login`).then((r) => r.ok, () => false), 'the stand-in to load its database', 20_000);
    const post = (route: string, fields: Record<string, string>) =>
      fetch(`${base}/web/database/${route}`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
    const list = () => fetch(`${base}/web/database/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'call', params: {} }) }).then((r) => r.json() as Promise<{ result?: string[]; error?: { data: { name: string } } }>);
    return { database, base, post, list };
  }

  const rcFile = (name: string, text: string) => {
    const path = join(home, name);
    writeFileSync(path, text);
    return path;
  };

  it('by default takes any master password: the first guess backs the database up and drops it (the attack)', async () => {
    const erp = await serve('standin_dbm_open');
    const manager = await (await fetch(`${erp.base}/web/database/manager`)).text();
    expect(manager).to.contain('your Odoo database manager is not protected').and.contain(erp.database);
    expect(await databaseManagerOpen(erp.base), "the executor's health check sees it open").to.equal(true);

    const backup = await erp.post('backup', { master_pwd: 'guessed', name: erp.database, backup_format: 'zip' });
    expect(backup.status).to.equal(200);
    expect(backup.headers.get('content-type')).to.equal('application/zip');
    const zip = Buffer.from(await backup.arrayBuffer());
    expect(zip.subarray(0, 2).toString()).to.equal('PK');
    expect(zip.toString('latin1')).to.contain('dump.sql').and.contain('CREATE TABLE public.ir_module_module').and.contain('"odoo_dump": "1"');

    const dump = await erp.post('backup', { master_pwd: 'guessed', name: erp.database, backup_format: 'dump' });
    expect(Buffer.from(await dump.arrayBuffer()).subarray(0, 5).toString()).to.equal('PGDMP');
    expect((await erp.post('backup', { master_pwd: 'another guess', name: erp.database })).status, 'the first guess became the master password').to.equal(403);
    expect((await erp.list()).result).to.deep.equal([erp.database]);

    const drop = await erp.post('drop', { master_pwd: 'guessed', name: erp.database });
    expect(drop.status).to.equal(303);
    expect(drop.headers.get('location')).to.equal('/web/database/manager');
    expect(await exists(erp.database)).to.equal(false);
  });

  it('refuses a wrong master password when admin_passwd holds a pbkdf2-sha512 hash, and takes the right one', async () => {
    const conf = rcFile('hashed.conf', `[options]\nadmin_passwd = ${await hashMasterPassword('the real one')}\n`);
    const erp = await serve('standin_dbm_hashed', ['-c', conf]);
    expect(await (await fetch(`${erp.base}/web/database/manager`)).text()).not.to.contain('not protected');
    for (const guess of ['admin', 'guessed', '']) {
      const backup = await erp.post('backup', { master_pwd: guess, name: erp.database });
      expect(backup.status, guess).to.equal(403);
      expect(await backup.text()).to.contain('Could not backup database. Access Denied');
      const drop = await erp.post('drop', { master_pwd: guess, name: erp.database });
      expect(drop.status, guess).to.equal(403);
      expect(await drop.text()).to.contain('Could not drop database. Access Denied');
    }
    expect(await exists(erp.database)).to.equal(true);
    expect((await fetch(`${erp.base}/web/database/backup`)).status, 'backup is POST only').to.equal(405);
    const backup = await erp.post('backup', { master_pwd: 'the real one', name: erp.database, backup_format: 'dump' });
    expect(backup.status).to.equal(200);
    expect(Buffer.from(await backup.arrayBuffer()).subarray(0, 5).toString()).to.equal('PGDMP');
  });

  for (const [how, args] of [
    ['list_db = False in the -c file', (conf: string) => ['-c', conf]],
    ['--no-database-list over a file saying list_db = True', (conf: string) => ['-c', conf.replace('closed', 'open'), '--no-database-list']],
  ] as const) {
    it(`closes the manager with ${how}: every route refuses, whatever the password`, async () => {
      rcFile('closed.conf', '[options]\nlist_db = False\n');
      rcFile('open.conf', '[options]\nlist_db = True\n');
      const erp = await serve('standin_dbm_closed', args(join(home, 'closed.conf')));
      for (const guess of ['admin', 'guessed']) {
        for (const route of ['backup', 'drop']) {
          const answer = await erp.post(route, { master_pwd: guess, name: erp.database });
          expect(answer.status, `${route} ${guess}`).to.equal(403);
          expect(await answer.text()).to.contain(`Could not ${route} database. Database management functions blocked`).and.contain('The database manager has been disabled by the administrator');
        }
      }
      // The real page answers 200 and says only that the manager is disabled; the JSON-RPC list answers AccessDenied.
      const manager = await fetch(`${erp.base}/web/database/manager`);
      expect(await manager.text()).to.contain('The database manager has been disabled by the administrator').and.not.contain(erp.database);
      expect((await erp.list()).error?.data.name).to.equal('odoo.exceptions.AccessDenied');
      expect(await databaseManagerOpen(erp.base), "the executor's health check sees it closed").to.equal(false);
      // %2F reaches the same route, as PATH_INFO is percent-decoded before routing.
      expect((await fetch(`${erp.base}/web%2Fdatabase%2Fdrop`, { method: 'POST', body: new URLSearchParams({ master_pwd: 'admin', name: erp.database }) })).status).to.equal(403);
      expect(await exists(erp.database)).to.equal(true);
    });
  }
});
