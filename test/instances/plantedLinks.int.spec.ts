import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { removeTenantAccount, tenantAccountName } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { instanceClient } from '#test/support/instances.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';

const SECRET = '{"masterKey":"not for the ERP"}\n';

/**
 * Issue 24's attack through the whole platform (process runtime, ERP stand-in): from the instance's
 * account (what its shell runs as) a link at logs/db.log cannot be planted any more; and an
 * instance of the old layout, whose account could write its logs/ and planted links there, is
 * restarted with the links removed and its secret target untouched.
 */
describe('links an instance plants in its own folder (issue 24, through the platform)', function () {
  this.timeout(120_000);
  let platform: TestPlatform;
  let client: ReturnType<typeof instanceClient>;

  before(async function () {
    if (process.getuid?.() !== 0) this.skip(); // only root gives an instance an account of its own
    const adminUrl = (await testCluster()).urlFor('postgres');
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: adminUrl, FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' })]);
    await platform.createUser('dev@example.com', 'developer');
    client = instanceClient(platform.urls.controlPlane!, 'dev@example.com');
  });
  const slugs: string[] = [];
  after(async () => {
    if (!platform) return;
    for (const slug of slugs) await client.act(slug, 'stop').then(() => client.settled(slug, 'stopped')).catch(() => undefined);
    await platform.stop();
    // Its ERP stopped, the instance's account runs nothing any more and can go.
    for (const slug of slugs) removeTenantAccount('instance', slug);
  });

  it('refuses the link to the instance\'s account, and a restart removes the ones an old layout let it plant', async () => {
    const { slug } = await client.create({ name: 'links', project: 'Acme', erp_version: '17.0', modules: [] });
    slugs.push(slug);
    await client.settled(slug, 'running');
    const root = platform.config.FORJA_DATA_DIR;
    const dir = instanceDir(root, slug);
    const secret = join(root, 'planted-secret.json');
    writeFileSync(secret, SECRET, { mode: 0o600 });
    const account = tenantAccountName('instance', slug);
    const asInstance = (...command: string[]) => spawnSync('runuser', ['-u', account, '--', ...command], { encoding: 'utf8' });

    const planted = asInstance('ln', '-sf', secret, instanceLogFile(root, slug, 'db'));
    expect(planted.status, 'ln -sf as the instance').not.to.equal(0);
    expect(planted.stderr).to.match(/Permission denied/);

    // The old layout: the instance's folder and logs/ its account's, links planted in them.
    execFileSync('chown', [account, dir, join(dir, 'logs')]);
    for (const log of ['db', 'erp'] as const) {
      execFileSync('rm', ['-f', instanceLogFile(root, slug, log)]);
      expect(asInstance('ln', '-s', secret, instanceLogFile(root, slug, log)).status, `planting logs/${log}.log`).to.equal(0);
    }
    await client.act(slug, 'restart');
    await client.settled(slug, 'running');
    expect(readFileSync(secret, 'utf8')).to.equal(SECRET);
    expect(statSync(secret)).to.include({ uid: 0 });
    expect(statSync(secret).mode & 0o777).to.equal(0o600);
    for (const log of ['db', 'erp'] as const) {
      const path = instanceLogFile(root, slug, log);
      if (existsSync(path)) expect(lstatSync(path).isFile(), `logs/${log}.log`).to.equal(true);
    }
    expect(readFileSync(instanceLogFile(root, slug, 'erp'), 'utf8')).to.include('HTTP service');
    expect(statSync(dir)).to.include({ uid: 0 });
    expect(statSync(join(dir, 'logs'))).to.include({ uid: 0 });
  });
});
