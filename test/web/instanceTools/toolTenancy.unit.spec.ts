import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '#shared/log.ts';
import { tenantAccount } from '#shared/local/tenantAccount.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { notebookTool } from '#web/tools/instanceTools/notebook.tool.ts';
import { prepareLaunch } from '#web/tools/instanceTools/toolLaunch.ts';
import { toolSupervisor, type ToolSupervisor } from '#web/tools/instanceTools/toolSupervisor.ts';
import { alive, askFakeTool, fakeToolSpec } from './fakeTool.ts';

/** Runs `command` as `user` (runuser: root's way to act as the tenant), with its exit status and output. */
const runAs = (user: SystemUser, command: string) => spawnSync('runuser', ['-u', user.name, '--', 'sh', '-c', command], { encoding: 'utf8' });

/** The folder's owner and mode, to show root changed nothing of it. */
const ownership = (path: string) => {
  const stats = statSync(path);
  return { uid: stats.uid, gid: stats.gid, mode: stats.mode };
};

/**
 * Issue 24, findings 1 and 2, on the tools' side: root (web) never follows a link an instance's
 * account planted in its tool folder, and two instances' tools run as two accounts.
 */
describe('the per-instance tools and the links a tenant plants (issue 24)', function () {
  this.timeout(20_000);
  let dataDir: string;
  let elsewhere: string;
  let supervisor: ToolSupervisor | undefined;
  let a: SystemUser;
  let b: SystemUser;
  const toolDir = (slug: string) => join(dataDir, 'instances', slug, 'tools', 'editor');
  const make = () => (supervisor = toolSupervisor({ dataDir, idleMs: 60_000, logger: silentLogger, account: (slug: string) => (slug === 'tenancy-b' ? b : a), readyTimeoutMs: 5000, stopGraceMs: 1000 }));

  before(function () {
    if (process.getuid?.() !== 0) return this.skip(); // accounts of their own need root
    a = tenantAccount('instance', 'tenancy-a')!;
    b = tenantAccount('instance', 'tenancy-b')!;
  });
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'forja-tenancy-'));
    // FORJA_DATA_DIR is traversed by every instance's account (each then stops at its own folder).
    chmodSync(dataDir, 0o711);
    // A root-owned folder the tenant wants root to give away or write into.
    elsewhere = mkdtempSync(join(tmpdir(), 'forja-root-owned-'));
  });
  afterEach(async () => {
    await supervisor?.stopAll();
    supervisor = undefined;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('leaves a root-owned folder alone when tools/editor is a link to it (old layout), and runs the tool in a folder of its own', async () => {
    mkdirSync(join(dataDir, 'instances', 'tenancy-a', 'tools'), { recursive: true });
    symlinkSync(elsewhere, toolDir('tenancy-a'));
    const before = ownership(elsewhere);
    const tool = await make().use(fakeToolSpec(), 'tenancy-a');
    expect(ownership(elsewhere)).to.deep.equal(before);
    expect(readdirSync(elsewhere)).to.deep.equal([]);
    expect(lstatSync(toolDir('tenancy-a')).isDirectory()).to.equal(true);
    expect((await askFakeTool(tool.target, tool.token)).body).to.include({ uid: a.uid, cwd: toolDir('tenancy-a') });
  });

  it('hands an old tools/editor of the shared forja-erp over to the instance\'s account whole, links chowned themselves', async () => {
    const old = toolDir('tenancy-a');
    mkdirSync(join(old, 'notebooks'), { recursive: true });
    writeFileSync(join(old, 'notebooks', 'kept.ipynb'), '{}');
    symlinkSync(elsewhere, join(old, 'notebooks', 'planted'));
    const before = ownership(elsewhere);
    // 999 stands for forja-erp, the account every instance's tools shared before.
    for (const path of [join(dataDir, 'instances', 'tenancy-a', 'tools'), old, join(old, 'notebooks'), join(old, 'notebooks', 'kept.ipynb')]) chownSync(path, 999, 999);
    lchownSync(join(old, 'notebooks', 'planted'), 999, 999);
    await make().use(fakeToolSpec(), 'tenancy-a');
    for (const path of [old, join(old, 'notebooks'), join(old, 'notebooks', 'kept.ipynb')]) expect(lstatSync(path), path).to.include({ uid: a.uid, gid: a.gid });
    expect(lstatSync(join(old, 'notebooks', 'planted'))).to.include({ uid: a.uid });
    expect(ownership(elsewhere)).to.deep.equal(before);
    expect(ownership(join(dataDir, 'instances', 'tenancy-a', 'tools'))).to.include({ uid: 0, gid: a.gid, mode: 0o40750 });
  });

  it('keeps tools/ root\'s, so the tenant cannot plant tools/editor in the first place (new layout)', async () => {
    await make().use(fakeToolSpec(), 'tenancy-a');
    expect(ownership(join(dataDir, 'instances', 'tenancy-a', 'tools'))).to.include({ uid: 0, gid: a.gid });
    expect(ownership(toolDir('tenancy-a'))).to.include({ uid: a.uid, gid: a.gid });
    const planted = runAs(a, `ln -s ${elsewhere} ${join(dataDir, 'instances/tenancy-a/tools/code')}`);
    expect(planted.status).to.not.equal(0);
    expect(planted.stderr).to.match(/Permission denied/);
  });

  it('writes the notebook\'s token and links its source never through a planted link (config, notebooks)', async () => {
    const launch = await prepareLaunch(notebookTool, dataDir, 'tenancy-a', a);
    // What the tenant (the tool's own account) can do in its folder between two starts.
    expect(runAs(a, `ln -s ${elsewhere} ${launch.workDir}/config && ln -s ${elsewhere} ${launch.workDir}/notebooks`).status).to.equal(0);
    const before = ownership(elsewhere);
    notebookTool.prepare!(launch);
    expect(readdirSync(elsewhere), 'nothing written through the links').to.deep.equal([]);
    expect(ownership(elsewhere)).to.deep.equal(before);
    for (const folder of ['config', 'notebooks']) expect(lstatSync(join(launch.workDir, folder)).isDirectory(), folder).to.equal(true);
    expect(statSync(join(launch.workDir, 'config', 'jupyter_notebook_config.json'))).to.include({ uid: a.uid, mode: 0o100600 });
    // A link the tenant put as `source` is replaced by Forja's (the instance here has no checkout: none).
    rmSync(join(launch.workDir, 'notebooks'), { recursive: true });
    mkdirSync(join(launch.workDir, 'notebooks'));
    symlinkSync('/etc', join(launch.workDir, 'notebooks', 'source'));
    notebookTool.prepare!(launch);
    expect(existsSync(join(launch.workDir, 'notebooks', 'source'))).to.equal(false);
  });

  describe('a socket the tenant swaps for a link to another (the container engine\'s API, say)', () => {
    let engine: Server;
    let engineSocket: string;
    let engineRequests = 0;
    beforeEach(async () => {
      engineRequests = 0;
      engineSocket = join(elsewhere, 'engine.sock');
      engine = createServer((_req, res) => {
        engineRequests++;
        res.end('{"engine":"root\'s"}');
      });
      await new Promise<void>((resolve) => engine.listen(engineSocket, resolve));
    });
    afterEach(() => new Promise<void>((resolve) => engine.close(() => resolve())));

    it('refuses a tool whose socket is a link, never connecting to its target', async () => {
      const error = await make()
        .use(fakeToolSpec('socket', { FAKE_TOOL_PLANT: engineSocket }), 'tenancy-a')
        .then(() => null, (failure: Error) => failure);
      expect(error?.message).to.match(/is not a socket of the tool's account/);
      expect(engineRequests).to.equal(0);
    });

    it('still reaches the checked socket only, when its name is replaced by a link once the tool runs', async () => {
      const tool = await make().use(fakeToolSpec(), 'tenancy-a');
      const socket = join(toolDir('tenancy-a'), 'tool.sock');
      expect(runAs(a, `mv ${socket} ${socket}.moved && ln -s ${engineSocket} ${socket}`).status).to.equal(0);
      const answer = await askFakeTool(tool.target, tool.token);
      expect(answer.body).to.include({ uid: a.uid });
      expect(engineRequests).to.equal(0);
    });
  });

  it('never writes its log through a link put as tool.log, nor into a hard link to another file', async () => {
    const first = make();
    await first.use(fakeToolSpec(), 'tenancy-a');
    await first.stopAll();
    const secret = join(elsewhere, 'secret');
    writeFileSync(secret, 'root only\n');
    const log = join(toolDir('tenancy-a'), 'tool.log');
    rmSync(log);
    symlinkSync(secret, log);
    await make().use(fakeToolSpec(), 'tenancy-a');
    expect(readFileSync(secret, 'utf8')).to.equal('root only\n');
    expect(lstatSync(log).isFile()).to.equal(true);
    await supervisor!.stopAll();
    // A hard link: the tenant may link a file of its own only (protected_hardlinks), root's never; still not written into.
    const mine = join(toolDir('tenancy-a'), 'mine');
    expect(runAs(a, `echo mine > ${mine} && rm ${log} && ln ${mine} ${log}`).status).to.equal(0);
    await make().use(fakeToolSpec(), 'tenancy-a');
    expect(readFileSync(mine, 'utf8')).to.equal('mine\n');
  });

  it('never kills a process of another account that tool.pid names', async () => {
    const first = make();
    await first.use(fakeToolSpec(), 'tenancy-a');
    await first.stopAll();
    // A root process in the tool's folder, as a web that died would have left its tool; the tenant names it in tool.pid.
    const root: ChildProcess = spawn('sleep', ['30'], { cwd: toolDir('tenancy-a'), detached: true, stdio: 'ignore' });
    try {
      writeFileSync(join(toolDir('tenancy-a'), 'tool.pid'), `${root.pid}\n`);
      await make().use(fakeToolSpec(), 'tenancy-a');
      expect(alive(root.pid!)).to.equal(true);
    } finally {
      root.kill('SIGKILL');
    }
  });

  it('runs two instances\' tools as two accounts, neither reading the other\'s environment nor folder', async () => {
    const toolA = await make().use(fakeToolSpec(), 'tenancy-a');
    const toolB = await supervisor!.use(fakeToolSpec(), 'tenancy-b');
    expect((await askFakeTool(toolA.target, toolA.token)).body?.uid).to.equal(a.uid);
    expect((await askFakeTool(toolB.target, toolB.token)).body?.uid).to.equal(b.uid);
    expect(a.uid).to.not.equal(b.uid);
    const environ = runAs(a, `cat /proc/${toolB.pid}/environ`);
    expect(environ.status).to.not.equal(0);
    expect(environ.stdout).to.not.include('TOOL_TOKEN');
    expect(runAs(a, `ls ${toolDir('tenancy-b')}`).stderr).to.match(/Permission denied/);
  });
});
