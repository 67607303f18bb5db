import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { freePort } from '#shared/local/freePort.ts';
import { removeTenantAccount, tenantAccount } from '#shared/local/tenantAccount.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { erpDatabases, type ErpDatabases } from '#services/executor/database/erpDatabases.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import { pidFilePath, readPidFile } from '#services/executor/runtime/process/pidFile.ts';
import { ProcessRuntime } from '#services/executor/runtime/process/processRuntime.ts';
import type { ErpRunSpec } from '#services/executor/runtime/runtime.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { memoryLog } from './fixtures/databaseFixtures.ts';
import { erpConfigFile } from '#services/executor/runtime/erpConfigFile.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);

/**
 * Issue 24, finding 2: from one instance's shell, another instance's ERP showed its PGPASSWORD in
 * /proc/<pid>/environ, and its role could read that customer's database. Two instances' ERPs
 * (the real stand-in, through the process runtime) run as two accounts that can read neither the
 * other's process environment nor its files, and whose roles cannot connect to the other's database.
 */
describe('two instances are isolated from each other (issue 24)', function () {
  this.timeout(60_000);
  let root: string;
  let adminUrl: string;
  let databases: ErpDatabases;
  let runtime: ProcessRuntime;
  const slugs = [`iso-a-${randomBytes(3).toString('hex')}`, `iso-b-${randomBytes(3).toString('hex')}`] as const;
  const specs = new Map<string, ErpRunSpec>();

  before(async function () {
    if (process.getuid?.() !== 0) this.skip(); // only root gives tenants accounts of their own
    root = runDir('tenant-isolation');
    adminUrl = (await testCluster()).urlFor('postgres');
    databases = erpDatabases({ adminUrl, log: memoryLog().stream, credentials });
    runtime = new ProcessRuntime({ dataDir: root, stopGraceMs: 3_000 });
    const server = new URL(adminUrl);
    for (const slug of slugs) {
      const database = databaseName(slug);
      onTeardown(async () => {
        await databases.drop(database);
        removeTenantAccount('instance', slug);
      });
      await databases.recreate(database);
      specs.set(slug, {
        slug,
        erpVersion: '17.0',
        edition: 'community',
        database,
        db: { host: server.hostname, port: Number(server.port), ...credentials(database) },
        sourceDir: null,
        addonsPath: [],
        dataDir: instanceDir(root, slug),
        logFile: instanceLogFile(root, slug, 'erp'),
        root,
        tenant: { kind: 'instance', slug },
      });
      await runtime.runOnce(specs.get(slug)!, ['-i', 'base', '--stop-after-init']);
      await runtime.start(specs.get(slug)!, await freePort());
      onTeardown(async () => runtime.stop(slug));
    }
  });

  after(async () => {
    await runtime?.close();
  });

  const pidOf = (slug: string) => readPidFile(pidFilePath(root, slug))!.pid;
  const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  /** Runs `command` as instance `slug`'s account, as its shell would. */
  const as = (slug: string, ...command: string[]) => spawnSync('runuser', ['-u', tenantAccount('instance', slug)!.name, '--', ...command], { encoding: 'utf8' });

  it('runs each instance\'s ERP as its own account', () => {
    const [a, b] = slugs.map((slug) => uidOf(pidOf(slug)));
    expect(a).to.equal(tenantAccount('instance', slugs[0])!.uid);
    expect(b).to.equal(tenantAccount('instance', slugs[1])!.uid);
    expect(a).not.to.equal(b);
    expect(a).not.to.equal(0);
  });

  it('one instance\'s account cannot read the other\'s process environment (its database password)', () => {
    const [a, b] = slugs;
    const own = as(a, 'cat', `/proc/${pidOf(a)}/environ`);
    expect(own.status, 'its own ERP\'s').to.equal(0);
    const other = as(a, 'cat', `/proc/${pidOf(b)}/environ`);
    expect(other.status).not.to.equal(0);
    expect(other.stderr).to.match(/Permission denied/);
    expect(other.stdout).not.to.include('PGPASSWORD');
    expect(own.stdout, 'the password is in no environment now (issue 25)').not.to.include('PGPASSWORD');
  });

  it('each ERP reads its database password from its own configuration file, which the other account cannot read (issue 25)', () => {
    const [a, b] = slugs;
    const own = as(a, 'cat', erpConfigFile(instanceDir(root, a)));
    expect(own.status, 'its own file').to.equal(0);
    expect(own.stdout).to.include(`db_password = ${specs.get(a)!.db.password}`);
    const other = as(a, 'cat', erpConfigFile(instanceDir(root, b)));
    expect(other.status, 'the other instance\'s file').not.to.equal(0);
    expect(other.stdout).to.equal('');
    expect(as(a, 'sh', '-c', `: > ${erpConfigFile(instanceDir(root, a))}.new`).status, 'its account cannot write beside its file').not.to.equal(0);
  });

  it('one instance\'s account can neither list nor read the other\'s folder, filestore or logs', () => {
    const [a, b] = slugs;
    const dir = instanceDir(root, b);
    for (const path of [dir, join(dir, 'filestore'), join(dir, 'logs'), join(dir, 'home')]) {
      const listed = as(a, 'ls', path);
      expect(listed.status, path).not.to.equal(0);
      expect(listed.stderr, path).to.match(/Permission denied/);
    }
    expect(as(a, 'cat', instanceLogFile(root, b, 'erp')).status).not.to.equal(0);
    expect(as(a, 'ls', join(root, 'instances')).status, 'the list of instances').not.to.equal(0);
    expect(as(a, 'ls', join(instanceDir(root, a), 'filestore')).status, 'its own filestore').to.equal(0);
  });

  it('one instance\'s role cannot connect to the other\'s database, even one made before CONNECT was revoked', async () => {
    const [a, b] = slugs.map((slug) => databaseName(slug)) as [string, string];
    const connectAs = async (role: string, database: string) => {
      const client = new pg.Client({ connectionString: urlAs(adminUrl, database, credentials(role)) });
      try {
        await client.connect();
        return 'connected';
      } catch (error) {
        return (error as Error).message;
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    expect(await connectAs(a, a)).to.equal('connected');
    expect(await connectAs(a, b)).to.match(/permission denied for database/);
    // A database of an earlier Forja: PUBLIC may connect until the next start sets its role up again.
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`grant connect on database ${pg.Client.prototype.escapeIdentifier.call(admin, b)} to public`);
    await admin.end();
    expect(await connectAs(a, b)).to.equal('connected');
    await databases.ensureRole(b);
    expect(await connectAs(a, b)).to.match(/permission denied for database/);
  });
});
