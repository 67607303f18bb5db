import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pg from 'pg';
import { type ErpDatabasesOptions, erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { copyFilestore, extractFilestore } from '#services/executor/database/filestore.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { bsdtar, freshName, memoryLog, sql } from './fixtures/databaseFixtures.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);

/** pids of running psql processes restoring into `database` (zombies excluded). */
function psqlInto(database: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv[0]?.endsWith('psql') === true && argv.includes(database);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * A job's signal aborts what the executor does to its databases: its statements are cancelled
 * on the server by the application_name its sessions (and its pg tools') carry, its tools are
 * stopped, and the operation rejects promptly with the abort's reason.
 */
describe('executor: ERP database operations aborted by their job', function () {
  this.timeout(30_000);
  let superUrl: string;
  /** A CREATEDB CREATEROLE admin, as FORJA_ERP_DATABASE_URL may well be: it must be able to cancel too. */
  let adminUrl: string;
  let dir: string;
  const held: pg.Client[] = [];

  before(async () => {
    superUrl = (await testCluster()).urlFor('postgres');
    const admin = `forja_admin_${randomBytes(3).toString('hex')}`;
    await sql(superUrl, 'postgres', `create role ${admin} login createdb createrole password 'admin secret'`);
    adminUrl = urlAs(superUrl, 'postgres', { user: admin, password: 'admin secret' });
  });
  beforeEach(() => {
    dir = runDir('erp-databases-abort');
  });
  afterEach(async () => {
    for (const client of held.splice(0)) await client.end().catch(() => undefined);
  });

  const jobName = () => `forja-job-${randomBytes(4).toString('hex')}`;
  const opened = (options: Partial<ErpDatabasesOptions> & { signal: AbortSignal }) => {
    const log = memoryLog();
    return { log, databases: erpDatabases({ adminUrl, log: log.stream, credentials, ...options }) };
  };
  const sessions = (where: string, params: unknown[]) => sql<{ application_name: string; state: string; query: string }>(superUrl, 'postgres', `select application_name, state, query from pg_stat_activity where ${where}`, params);
  const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('the operation should have been aborted'), (error: Error) => error);

  /** A session of the database's own role holding `lock table … in access exclusive mode` on the ERP's module registry. */
  async function lockedRegistry(database: string): Promise<void> {
    const owner = new pg.Client({ connectionString: urlAs(superUrl, database, credentials(database)), application_name: 'test-lock-holder' });
    owner.on('error', () => undefined);
    await owner.connect();
    held.push(owner);
    await owner.query('create table ir_module_module (id serial primary key, name varchar not null unique, state varchar not null)');
    await owner.query('begin; lock table ir_module_module in access exclusive mode');
  }

  it('restoring a plain dump whose statement hangs: psql stopped, its statement cancelled, rejected with the reason, no session of the job left', async () => {
    const job = jobName();
    const abort = new AbortController();
    const { databases, log } = opened({ signal: abort.signal, applicationName: job });
    const target = freshName('abortrestore');
    const dump = join(dir, 'hanging.sql');
    writeFileSync(dump, 'CREATE TABLE partner (id integer);\nSELECT pg_sleep(60);\n');
    const restore = rejection(databases.restore(dump, 'plain', target));
    await waitUntil(async () => (await sessions(`application_name = $1 and query like '%pg_sleep%' and state = 'active'`, [job])).length > 0, 'psql to run the statement as the job');
    expect(psqlInto(target)).to.have.length(1);

    const started = Date.now();
    const reason = new Error('job cancelled: the instance is being destroyed');
    abort.abort(reason);
    expect(await restore).to.equal(reason);
    expect(Date.now() - started).to.be.below(3_000);
    expect(await sessions('application_name = $1', [job])).to.deep.equal([]);
    expect(psqlInto(target), 'psql processes left').to.deep.equal([]);
    expect(log.text())
      .to.include('psql: aborted, stopping it')
      .and.include(`aborted: cancelled the statements of 1 session(s) of ${job}`)
      .and.include(`FAILED: ${reason.message}`);
  });

  it('reading the module registry behind a lock: the waiting statement cancelled, and later calls refused without connecting', async () => {
    const job = jobName();
    const abort = new AbortController();
    const { databases, log } = opened({ signal: abort.signal, applicationName: job });
    const name = freshName('abortlock');
    await databases.recreate(name);
    await lockedRegistry(name);
    const reading = rejection(databases.moduleStates(name, ['base']));
    await waitUntil(async () => (await sessions(`application_name = $1 and wait_event_type = 'Lock'`, [job])).length > 0, 'the read to wait on the lock');

    const started = Date.now();
    abort.abort();
    expect(await reading).to.have.property('name', 'AbortError');
    expect(Date.now() - started).to.be.below(3_000);
    expect(await sessions('application_name = $1', [job])).to.deep.equal([]);
    expect(await sessions(`application_name = 'test-lock-holder'`, []), 'another session on the database').to.have.length(1);
    expect(log.text()).to.match(new RegExp(`aborted: cancelled the statements of 1 session\\(s\\) of ${job}`));

    const dropped = freshName('neverdropped');
    expect(await rejection(databases.recreate(dropped))).to.have.property('name', 'AbortError');
    expect(await rejection(databases.exists(name))).to.have.property('name', 'AbortError');
    expect(await sql(superUrl, 'postgres', 'select 1 from pg_database where datname = $1', [dropped])).to.deep.equal([]);
  });

  it('tags its sessions forja-executor-<random> when given a signal but no name, so an abort cancels only its own', async () => {
    const abort = new AbortController();
    const { databases } = opened({ signal: abort.signal });
    const name = freshName('abortnoname');
    await databases.recreate(name);
    await lockedRegistry(name);
    const reading = rejection(databases.moduleStates(name, ['base']));
    let tagged: string[] = [];
    await waitUntil(async () => (tagged = (await sessions(`datname = $1 and wait_event_type = 'Lock'`, [name])).map((row) => row.application_name)).length > 0, 'the read to wait');
    expect(tagged).to.have.length(1);
    expect(tagged[0]).to.match(/^forja-executor-[0-9a-f]{12}$/);
    abort.abort();
    expect(await reading).to.have.property('name', 'AbortError');
    expect(await sessions('application_name = $1', [tagged[0]])).to.deep.equal([]);
  });

  it('refuses an application_name the server would alter, which the cancel would then miss', () => {
    for (const applicationName of ['forja-job-ñ', 'x'.repeat(64), '']) {
      expect(() => erpDatabases({ adminUrl, log: memoryLog().stream, credentials, applicationName })).to.throw(/not a usable application_name/);
    }
  });

  describe('filestores', () => {
    function tree(root: string): string {
      mkdirSync(join(root, 'ab'), { recursive: true });
      writeFileSync(join(root, 'ab', 'ab12'), 'invoice.pdf');
      return root;
    }
    function target(): string {
      const path = join(dir, 'data', 'filestore', 'forja_target');
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, 'kept'), 'old');
      return path;
    }
    const untouched = (path: string) => {
      expect(readdirSync(path)).to.deep.equal(['kept']);
      expect(readdirSync(join(path, '..'))).to.deep.equal(['forja_target']);
    };

    it('a copy aborted while it runs keeps the old filestore and leaves no partial copy', async () => {
      const abort = new AbortController();
      const to = target();
      const copying = rejection(copyFilestore(tree(join(dir, 'source')), to, memoryLog().stream, { signal: abort.signal }));
      abort.abort(); // while it prepares its staging folder: cp's first file stops it
      expect(await copying).to.have.property('name', 'AbortError');
      untouched(to);
    });

    it('an extraction asked after the abort keeps the old filestore', async () => {
      tree(join(dir, 'archived'));
      bsdtar(['-cf', join(dir, 'filestore.tar'), '-C', join(dir, 'archived'), 'ab']);
      const to = target();
      const error = await rejection(extractFilestore(join(dir, 'filestore.tar'), to, memoryLog().stream, undefined, { signal: AbortSignal.abort() }));
      expect(error).to.have.property('name', 'AbortError');
      untouched(to);
    });

    it('an extraction aborted once it started keeps the old filestore and leaves no partial folder', async () => {
      const abort = new AbortController();
      tree(join(dir, 'archived'));
      bsdtar(['-cf', join(dir, 'filestore.tar'), '-C', join(dir, 'archived'), 'ab']);
      const to = target();
      // Aborted by the line it logs as it starts reading entries: the next entry stops it.
      const log = new Writable({
        write(chunk: Buffer, _encoding, done) {
          if (chunk.toString().includes('extracting filestore archive')) abort.abort();
          done();
        },
      });
      const error = await rejection(extractFilestore(join(dir, 'filestore.tar'), to, log, undefined, { signal: abort.signal }));
      expect(error).to.have.property('name', 'AbortError');
      untouched(to);
    });
  });
});
