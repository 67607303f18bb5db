import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '#shared/log.ts';
import { durationMs } from '#shared/config/duration.ts';
import { toolSupervisor, type ToolSupervisor } from '#web/tools/instanceTools/toolSupervisor.ts';
import { waitUntil } from '#test/support/wait.ts';
import { alive, askFakeTool, fakeToolSpec } from './fakeTool.ts';

describe('the per-instance tool supervisor (web/tools/instanceTools/toolSupervisor.ts)', function () {
  this.timeout(20_000);
  let dataDir: string;
  let supervisor: ToolSupervisor;
  const make = (idleMs = 60_000) => (supervisor = toolSupervisor({ dataDir, idleMs, logger: silentLogger, account: () => null, readyTimeoutMs: 5000, stopGraceMs: 1000 }));

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'forja-tools-'));
  });
  afterEach(async () => {
    await supervisor?.stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a tool once for concurrent first requests, in its own folder, answering only with its token', async () => {
    make();
    const spec = fakeToolSpec();
    const started = await Promise.all([supervisor.use(spec, 'acme-dev'), supervisor.use(spec, 'acme-dev'), supervisor.use(spec, 'acme-dev')]);
    expect(new Set(started.map((tool) => tool.pid)).size).to.equal(1);
    expect(supervisor.running()).to.deep.equal(['acme-dev/editor']);
    const [tool] = started;
    // Through the handle web checked the socket by, never by its path in the tenant's folder.
    expect(tool!.target).to.have.property('socketPath').that.matches(/^\/proc\/self\/fd\/\d+$/);
    const answer = await askFakeTool(tool!.target, tool!.token, '/x');
    expect(answer.body?.cwd).to.equal(join(dataDir, 'instances/acme-dev/tools/editor'));
    expect((await askFakeTool(tool!.target, 'not the token')).status).to.equal(403);
    // Reused while running; another instance gets its own.
    expect((await supervisor.use(spec, 'acme-dev')).pid).to.equal(tool!.pid);
    const other = await supervisor.use(spec, 'acme-prod');
    expect(other.pid).to.not.equal(tool!.pid);
    expect(other.token).to.not.equal(tool!.token);
  });

  it('gives a tool none of web’s environment beyond PATH, LANG and TZ (no Forja secret)', async () => {
    make();
    process.env['FORJA_MASTER_KEY_FOR_TEST'] = 'secret';
    try {
      const tool = await supervisor.use(fakeToolSpec(), 'acme-dev');
      const { body } = await askFakeTool(tool.target, tool.token);
      expect(body!.env.filter((name) => !['PATH', 'LANG', 'TZ', 'TOOL_TOKEN', 'TOOL_SOCKET', 'TOOL_PORT'].includes(name))).to.deep.equal([]);
    } finally {
      delete process.env['FORJA_MASTER_KEY_FOR_TEST'];
    }
  });

  it('listens on a private port when the spec says so', async () => {
    make();
    const tool = await supervisor.use(fakeToolSpec('port'), 'acme-dev');
    expect(tool.target).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await askFakeTool(tool.target, tool.token)).status).to.equal(200);
  });

  it('stops a tool after the idle time without use, and starts it again at the next request', async () => {
    make(400);
    const spec = fakeToolSpec();
    const first = await supervisor.use(spec, 'acme-dev');
    // Use keeps it up past the idle time.
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      supervisor.touch(spec, 'acme-dev');
    }
    expect(alive(first.pid)).to.equal(true);
    await waitUntil(() => !alive(first.pid), 'the idle tool to stop', 5000);
    expect(supervisor.running()).to.deep.equal([]);
    const second = await supervisor.use(spec, 'acme-dev');
    expect(second.pid).to.not.equal(first.pid);
    expect((await askFakeTool(second.target, second.token)).status).to.equal(200);
  });

  it('stops the tools of an instance that is gone at the next sweep, and leaves the others running', async () => {
    const gone = new Set<string>();
    supervisor = toolSupervisor({ dataDir, idleMs: 60_000, logger: silentLogger, account: () => null, readyTimeoutMs: 5000, stopGraceMs: 1000, sweepMs: 100, instanceExists: async (slug) => !gone.has(slug) });
    const spec = fakeToolSpec();
    const destroyed = await supervisor.use(spec, 'acme-old');
    const kept = await supervisor.use(spec, 'acme-dev');
    gone.add('acme-old');
    await waitUntil(() => !alive(destroyed.pid), 'the destroyed instance’s tool to stop', 5000);
    expect(supervisor.running()).to.deep.equal(['acme-dev/editor']);
    expect(alive(kept.pid)).to.equal(true);
  });

  it('starts a tool that died again at the next request', async () => {
    make();
    const spec = fakeToolSpec();
    const first = await supervisor.use(spec, 'acme-dev');
    process.kill(first.pid, 'SIGKILL');
    await waitUntil(() => supervisor.running().length === 0, 'the supervisor to see the tool exit', 5000);
    const second = await supervisor.use(spec, 'acme-dev');
    expect(second.pid).to.not.equal(first.pid);
    expect((await askFakeTool(second.target, second.token)).status).to.equal(200);
  });

  it('fails a start whose tool exits, naming its log, and tries again at the next request', async () => {
    make();
    const error = await supervisor.use(fakeToolSpec('socket', { FAKE_TOOL_FAIL: '1' }), 'acme-dev').then(() => null, (failure: Error) => failure);
    expect(error?.message).to.equal(`The fake tool exited while starting (see ${join(dataDir, 'instances/acme-dev/tools/editor/tool.log')})`);
    expect(supervisor.running()).to.deep.equal([]);
    expect((await supervisor.use(fakeToolSpec(), 'acme-dev')).pid).to.be.a('number');
  });

  it('stops every tool when web stops, and starts none after', async () => {
    make();
    const spec = fakeToolSpec();
    const tools = await Promise.all([supervisor.use(spec, 'acme-dev'), supervisor.use(spec, 'acme-prod')]);
    await supervisor.stopAll();
    expect(tools.map((tool) => alive(tool.pid))).to.deep.equal([false, false]);
    const error = await supervisor.use(spec, 'acme-dev').then(() => null, (failure: Error) => failure);
    expect(error?.message).to.equal('web is stopping: no tool starts now');
  });

  it('ends a tool a dead web left running before starting it again', async () => {
    const spec = fakeToolSpec();
    const orphan = await toolSupervisor({ dataDir, idleMs: 60_000, logger: silentLogger, account: () => null }).use(spec, 'acme-dev');
    make();
    const started = await supervisor.use(spec, 'acme-dev');
    await waitUntil(() => !alive(orphan.pid), 'the left-over tool to end', 5000);
    expect((await askFakeTool(started.target, started.token)).status).to.equal(200);
  });

  it('reads FORJA_TOOL_IDLE’s durations', () => {
    expect([durationMs('90s'), durationMs('30m'), durationMs('2h'), durationMs('1d')]).to.deep.equal([90_000, 1_800_000, 7_200_000, 86_400_000]);
  });
});
