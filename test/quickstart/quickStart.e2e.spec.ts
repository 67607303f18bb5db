import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { commitAndPush, createBareRepo, type BareRepo } from '#test/support/bareRepo.ts';
import { cloneWorkingTree, npmStart, processesUnder, userEnvironment, type NpmStart } from '#test/support/quickStart.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { waitUntil } from '#test/support/wait.ts';

interface InstanceOut {
  status: string;
  url: string | null;
  last_error: string | null;
  commit?: string | null;
}

/**
 * The README's Quick start, as a new user runs it (slow: two platform starts, about a minute):
 * `npm start` in a fresh clone with the defaults (relative `.data`, no FORJA_* settings, only the
 * three ports moved, and the folder of its file:// repository in FORJA_GIT_FILE_ROOTS), a
 * git-backed instance through the JSON API, stop and start on the same URL, Ctrl-C to the whole
 * process group, nothing left running, and the instance back on the next start.
 */
describe('Quick start, end to end with the defaults [slow]', function () {
  this.timeout(240_000);
  this.slow(60_000);
  let clone: string;
  let env: NodeJS.ProcessEnv;
  let api: string;
  let repo: BareRepo;
  let commit: string;
  let credentials: string;
  /** Where the ERP answered in the first run: it must answer there again. */
  let erpUrl: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Basic ${credentials}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as InstanceOut & Record<string, unknown> };
  };
  const instance = async () => (await call('GET', '/api/v1/instances/acme-dev')).json;
  const waitForStatus = async (status: string, timeoutMs = 60_000) => {
    let last: InstanceOut | undefined;
    await waitUntil(async () => {
      last = await instance();
      if (last.status === 'failed') throw new Error(`the instance failed: ${last.last_error}`);
      return last.status === status;
    }, `the instance to be ${status} (last seen ${JSON.stringify(last)})`, timeoutMs);
    return last!;
  };
  const answersHealth = (url: string) => fetch(`${url}/web/health`).then((response) => response.ok, () => false);

  /** Ctrl-C, then: exit 0 within 30 s, "stopped cleanly", and no cluster, nats-server or ERP of the clone left. */
  const interruptAndCheck = async (platform: NpmStart) => {
    platform.interrupt();
    const code = await Promise.race([platform.exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
    expect(code, `npm start exit after Ctrl-C:\n${platform.output().slice(-2000)}`).to.equal(0);
    expect(platform.output()).to.include('stopped cleanly');
    expect(processesUnder(clone), 'processes of the clone left running').to.deep.equal([]);
  };

  before(async () => {
    clone = join(runDir('quickstart'), 'forja');
    cloneWorkingTree(clone);
    onTeardown(async () => {
      for (const line of processesUnder(clone)) process.kill(Number(line.split(':')[0]), 'SIGKILL');
    });
    const user = await userEnvironment();
    env = user.env;
    api = `http://127.0.0.1:${user.ports.controlPlane}`;
    repo = await createBareRepo('shop');
    commit = await commitAndPush(repo, 'main', 'add the shop addon', async (work) => {
      await mkdir(join(work, 'shop_addon'));
      await writeFile(join(work, 'shop_addon', '__manifest__.py'), "{'name': 'Shop addon', 'version': '17.0.1.0.0', 'depends': ['base']}\n");
      await writeFile(join(work, 'shop_addon', '__init__.py'), '');
    });
    // The one setting the README asks for a file:// repository: the folder it may come from.
    env['FORJA_GIT_FILE_ROOTS'] = dirname(repo.dir);
  });

  it('runs a git-backed instance on the defaults, keeps its URL across stop and start, and stops everything on Ctrl-C', async () => {
    const platform = npmStart(clone, env);
    const [, password] = await platform.waitForOutput(/first admin +created admin@forja\.local with password (\S+)/, 120_000);
    await platform.waitForOutput(/Ctrl-C stops everything/, 60_000);
    expect(platform.output()).to.include(`(${join(clone, '.data', 'postgres')})`);
    credentials = Buffer.from(`admin@forja.local:${password}`).toString('base64');

    const created = await call('POST', '/api/v1/instances', { name: 'dev', project: 'Acme', erp_version: '17.0', git_repo: repo.url, modules: ['shop_addon'] });
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const running = await waitForStatus('running');
    expect(running.commit).to.equal(commit);
    expect(await answersHealth(running.url!)).to.equal(true);

    expect((await call('POST', '/api/v1/instances/acme-dev/action', { action: 'stop' })).status).to.equal(200);
    await waitForStatus('stopped');
    expect(await answersHealth(running.url!)).to.equal(false);
    expect((await call('POST', '/api/v1/instances/acme-dev/action', { action: 'start' })).status).to.equal(200);
    const started = await waitForStatus('running');
    expect(started.url, 'the URL after stop and start').to.equal(running.url);
    erpUrl = started.url!;
    expect(await answersHealth(started.url!)).to.equal(true);

    await interruptAndCheck(platform);
    expect(await answersHealth(running.url!), 'the ERP went down with npm start').to.equal(false);
  });

  it('brings the running instance back, on the same URL, at the next npm start', async () => {
    const platform = npmStart(clone, env);
    await platform.waitForOutput(/Ctrl-C stops everything/, 120_000);
    await waitUntil(async () => {
      const now = await instance();
      return now.status === 'running' && now.url !== null && (await answersHealth(now.url));
    }, 'the instance to be running again', 60_000);
    const after = await instance();
    expect(after.url).to.equal(erpUrl);
    expect(after.last_error).to.equal(null);
    await interruptAndCheck(platform);
  });
});
