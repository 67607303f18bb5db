import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { tenantAccount } from '#shared/local/tenantAccount.ts';
import { instanceDir } from '#shared/platform/dataPaths.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import type { WebSession } from '#test/support/webSession.ts';
import { openShell, type ShellClient } from './shellClient.ts';

const A = 'shell-tenancy-a';
const B = 'shell-tenancy-b';

/**
 * Issue 24 on the web shell's side: each instance's shell runs as that instance's own account,
 * so one instance's shell reads neither another's processes (their environment holds its
 * database password) nor its files; and root makes the shell's HOME without following a link the
 * tenant put in its place.
 */
describe('the web shell and tenancy (issue 24)', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let developer: WebSession;
  const open: ShellClient[] = [];
  const shell = async (slug: string) => {
    const client = await openShell(platform.web, developer, slug);
    open.push(client);
    return client;
  };
  let runs = 100;
  /** Runs `command` in the shell and returns what it printed between two markers of its own, which the echo of the command line never shows. */
  const run = async (client: ShellClient, command: string): Promise<string> => {
    const marker = ++runs;
    client.type(`echo "@$((${marker - 1}+1))@$(${command} 2>&1)@$((${marker - 1}+1))@"\r`);
    return (await client.waitFor(new RegExp(`@${marker}@([^@]*)@${marker}@`)))[1]!.trim();
  };

  before(async function () {
    if (process.getuid?.() !== 0) return this.skip(); // accounts of their own need root
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
    expect((await developer.post('/projects', { name: 'Shell Tenancy' })).status).to.equal(303);
    for (const [name, port] of [['A', 18095], ['B', 18094]] as const) {
      expect((await developer.post('/instances', { name, project: 'shell-tenancy', erp_version: '18.0' })).status).to.equal(303);
      await jobPlayer(platform).run(`shell-tenancy-${name.toLowerCase()}`, standinFacts(`http://127.0.0.1:${port}`));
    }
    for (const slug of [A, B]) mkdirSync(instanceDir(platform.config.FORJA_DATA_DIR, slug), { recursive: true });
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.ws.close();
  });
  after(() => platform?.stop());

  it('never gives away what `home` links to: the link is replaced by a folder of the instance’s account', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'forja-root-owned-'));
    try {
      const before = statSync(elsewhere);
      const home = join(instanceDir(platform.config.FORJA_DATA_DIR, A), 'home');
      rmSync(home, { recursive: true, force: true });
      symlinkSync(elsewhere, home);
      const client = await shell(A);
      expect(await run(client, 'echo $HOME; touch $HOME/mine && echo written')).to.include('written');
      expect(statSync(elsewhere)).to.include({ uid: before.uid, gid: before.gid, mode: before.mode });
      expect(readdirSync(elsewhere)).to.deep.equal([]);
      expect(lstatSync(home).isDirectory()).to.equal(true);
      expect(statSync(home)).to.include({ uid: tenantAccount('instance', A)!.uid, mode: 0o40700 });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('runs two instances’ shells as two accounts: neither reads the other’s process environment nor its home', async () => {
    const [shellA, shellB] = [await shell(A), await shell(B)];
    const [uidA, uidB] = [await run(shellA, 'id -u'), await run(shellB, 'id -u')];
    expect(Number(uidA)).to.equal(tenantAccount('instance', A)!.uid);
    expect(Number(uidB)).to.equal(tenantAccount('instance', B)!.uid);
    expect(uidA).to.not.equal(uidB);
    // B's shell has B's database password in its environment, as B's ERP has.
    const pidB = await run(shellB, 'echo $$');
    expect(await run(shellB, `tr '\\0' '\\n' < /proc/${pidB}/environ | grep -c ^PGPASSWORD=`)).to.equal('1');
    const environ = await run(shellA, `cat /proc/${pidB}/environ`);
    expect(environ).to.match(/Permission denied/);
    expect(environ).to.not.include('PGPASSWORD');
    expect(await run(shellA, `ls ${join(instanceDir(platform.config.FORJA_DATA_DIR, B), 'home')}`)).to.match(/Permission denied/);
  });
});
