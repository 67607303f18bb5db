import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { findAdminer } from '#services/dbadmin/adminerInstall.ts';
import { dbAdminStarter } from '#services/dbadmin/dbAdminProcess.ts';
import { loadConfig } from '#shared/config/config.ts';
import { silentLogger } from '#shared/log.ts';
import type { Infrastructure } from '#shared/platform/infrastructure.ts';
import { freePort } from '#test/support/freePort.ts';
import { adminerMissing } from './dbAdminFixture.ts';

describe('the database admin process in npm start', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'forja-dbadmin-process-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = async (env: Record<string, string> = {}) => loadConfig({ FORJA_DATA_DIR: dataDir, FORJA_DBADMIN_PORT: String(await freePort()), ...env });

  it('names the Debian packages that are missing, so the banner can say what to install', () => {
    expect(findAdminer('/nonexistent/adminer')).to.deep.equal({ missing: 'not installed (apt-get install adminer)' });
    expect(findAdminer('/nonexistent/adminer', '/nonexistent/bin')).to.deep.equal({ missing: 'not installed (apt-get install php-cli adminer)' });
  });

  it('starts nothing when FORJA_DBADMIN is false', async () => {
    const proc = await dbAdminStarter()({} as Infrastructure, await config({ FORJA_DBADMIN: 'false' }), silentLogger);
    expect(proc.describe()).to.deep.equal(['off (FORJA_DBADMIN=false)']);
    expect(proc.url).to.equal(undefined);
    await proc.stop();
  });

  it('says it is off, and goes on, when there is no instance database server to pin Adminer to', async function () {
    if (adminerMissing()) return this.skip();
    const proc = await dbAdminStarter({ FORJA_ERP_DATABASE_URL: undefined })({} as Infrastructure, await config(), silentLogger);
    expect(proc.describe()[0]).to.match(/^off: no instance database server yet/);
    await proc.stop();
  });

  it('refuses to start on a port already taken, naming it and the settings', async function () {
    if (adminerMissing()) return this.skip();
    const holder = createServer();
    const taken = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      const error = await dbAdminStarter({ FORJA_ERP_DATABASE_URL: 'postgres://admin:x@127.0.0.1:5432/postgres' })({} as Infrastructure, await config({ FORJA_DBADMIN_PORT: String(taken) }), silentLogger).then(
        () => undefined,
        (failure: Error) => failure,
      );
      expect(error?.message).to.equal(`database admin: port ${taken} on 127.0.0.1 is already in use: stop what holds it or set FORJA_DBADMIN_PORT (or FORJA_DBADMIN=false)`);
    } finally {
      holder.close();
    }
  });

  it('runs PHP as its own system user when root, and stops it with all its workers', async function () {
    if (adminerMissing() || process.getuid?.() !== 0) return this.skip();
    const proc = await dbAdminStarter({ FORJA_ERP_DATABASE_URL: 'postgres://admin:x@127.0.0.1:5432/postgres' })({} as Infrastructure, await config(), silentLogger);
    const port = new URL(proc.url!).port;
    const servers = () => execFileSync('ps', ['-o', 'user:32=,args=', '-C', 'php'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(`-S 127.0.0.1:${port} `));
    try {
      expect(proc.describe()[0]).to.match(/^Adminer on 127\.0\.0\.1:\d+, proxied by web at \/dbadmin\/<instance>\/ \(instance databases on 127\.0\.0\.1:5432 only\)$/);
      const res = await fetch(proc.url!);
      expect(res.headers.get('x-forja-tool')).to.equal('dbadmin');
      expect(res.headers.get('x-powered-by')).to.equal(null);
      // The server and its workers (PHP_CLI_SERVER_WORKERS).
      expect(servers().length).to.be.greaterThan(1);
      for (const line of servers()) expect(line.trim().split(/\s+/)[0]).to.equal('forja-dbadmin');
    } finally {
      await proc.stop();
    }
    expect(servers()).to.deep.equal([]);
  });
});
