import { statSync } from 'node:fs';
import { expect } from 'chai';
import { findUserByEmail } from '#projections/users/users.ts';
import { instanceStream } from '#services/instances/domain/instance.ts';
import { NOTEBOOK_MISSING, notebookTool } from '#web/tools/instanceTools/notebook.tool.ts';
import { tenantAccount } from '#shared/local/tenantAccount.ts';
import { readBytes } from '#test/support/rawUpgrade.ts';
import { openTool, toolClient, toolUpgrade } from '#test/support/toolSession.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, textOf, type WebSession } from '#test/support/webSession.ts';
import { alive } from './fakeTool.ts';
import { buildNotebookFixture, jupyterMissing, notebookServer } from './notebookSupport.ts';

const BASE = '/instances/acme-dev/editor/proxy';

describe('the notebook editor (Jupyter Notebook) behind web at /instances/{slug}/editor/proxy', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let developer: WebSession;

  before(async function () {
    const missing = jupyterMissing();
    if (missing) {
      console.warn(`    skipped: ${missing}`);
      return this.skip();
    }
    // Short, yet longer than any test's pause between two requests (a kernel's first start).
    platform = await startWebPlatform({ FORJA_TOOL_IDLE: '12s' });
    await buildNotebookFixture(platform);
    developer = await platform.signedIn('developer');
  });
  after(() => platform?.stop());

  const clients = new Map<WebSession, ReturnType<typeof toolClient>>();
  /** A request on the notebook's tools host as `session`'s user (opened through web's link), any method, JSON or nothing as the body. */
  const send = (session: WebSession, path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) => {
    if (!clients.has(session)) clients.set(session, toolClient(session));
    return clients.get(session)!(path, init);
  };
  /** The notebook host's origin and cookie for `session`. */
  const toolOf = (session: WebSession, slug = 'acme-dev') => openTool(session, `/instances/${slug}/editor/proxy/tree`);

  it('starts on first use for a developer and opens the instance’s notebooks, with the source checkout beside them', async () => {
    const tree = await send(developer, `${BASE}/tree`);
    expect(tree.status).to.equal(200);
    expect(tree.text).to.include('<title>Home Page - Select or create a notebook</title>');
    const source = JSON.parse((await send(developer, `${BASE}/api/contents/source`)).text) as { content: Array<{ name: string }> };
    expect(source.content.map((entry) => entry.name)).to.deep.equal(['addon.py']);
    const admin = await platform.signedIn('admin');
    expect((await send(admin, `${BASE}/api/status`)).status).to.equal(200);
  });

  it('refuses viewers, sends anonymous visitors to sign in, and answers 404 for an unknown or destroyed instance', async () => {
    const viewer = await platform.signedIn('viewer');
    const refused = await send(viewer, `${BASE}/tree`);
    expect(refused.status).to.equal(403);
    expect(textOf(refused.text)).to.include('This needs the developer role; you are signed in as viewer.');
    const anonymous = await fetch(`${platform.web}${BASE}/tree`, { redirect: 'manual' });
    expect(anonymous.status).to.equal(303);
    expect(anonymous.headers.get('location')).to.equal(`/login?next=${encodeURIComponent(`${BASE}/tree`)}`);
    for (const slug of ['no-such-instance', 'acme-gone']) {
      const missing = await send(developer, `/instances/${slug}/editor/proxy/tree`);
      expect(missing.status, slug).to.equal(404);
      expect(textOf(missing.text), slug).to.include(`There is no instance ${slug}.`);
    }
    const gone = await toolOf(developer, 'acme-gone');
    expect((await toolUpgrade(`${gone.origin}/instances/acme-gone/editor/proxy/api/kernels/x/channels`, { cookie: gone.cookie, origin: gone.origin })).status).to.equal(404);
    const own = await toolOf(developer);
    const viewerSocket = await toolUpgrade(`${own.origin}${BASE}/api/kernels/x/channels`, { cookie: `${SESSION_COOKIE}=${viewer.cookie}`, origin: own.origin });
    expect(viewerSocket.status, 'web\'s cookie is no key to the tool').to.equal(401);
  });

  it('runs as the instance’s own account when web runs as root, never as root, with a token the browser never sees', async function () {
    await send(developer, `${BASE}/api/status`);
    const server = notebookServer(platform, 'acme-dev');
    expect(server, 'the running notebook server').to.not.equal(null);
    const owner = statSync(`/proc/${server!.pid}`).uid;
    if (process.getuid?.() === 0) expect(owner).to.equal(tenantAccount('instance', 'acme-dev')!.uid);
    else expect(owner).to.equal(process.getuid?.());
    // Every kind of answer a browser gets from it: pages, scripts, JSON, a kernel's record, a new notebook.
    const kernel = await send(developer, `${BASE}/api/kernels`, { method: 'POST', json: { name: 'python3' } });
    expect(kernel.status).to.equal(201);
    const created = await send(developer, `${BASE}/api/contents`, { method: 'POST', json: { type: 'notebook' } });
    expect(created.status).to.equal(201);
    const answers = [
      kernel,
      created,
      ...(await Promise.all(
        ['/tree', '/notebooks/Untitled.ipynb', '/api/contents', '/api/sessions', '/api/kernels', '/api/status', '/api/config/tree', '/static/tree/js/main.min.js', '/login', '/logout'].map((path) =>
          send(developer, `${BASE}${path}`),
        ),
      )),
    ];
    for (const answer of answers) {
      expect(answer.text).to.not.include(server!.token);
      expect([...answer.headers.values()].join('\n')).to.not.include(server!.token);
    }
    expect(kernel.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('carries a kernel’s WebSocket channel, and refuses one opened from another site', async () => {
    const kernel = JSON.parse((await send(developer, `${BASE}/api/kernels`, { method: 'POST', json: { name: 'python3' } })).text) as { id: string };
    const tool = await toolOf(developer);
    const url = `${tool.origin}${BASE}/api/kernels/${kernel.id}/channels`;
    const ws = await toolUpgrade(url, { cookie: tool.cookie, origin: tool.origin });
    expect(ws.status).to.equal(101);
    // The kernel reports its state on the channel as soon as it is open: a first text frame arrives
    // (once the Python kernel has started, which takes its time on a loaded machine).
    const frame = await readBytes(ws.socket!, 2, 90_000);
    expect(frame[0]! & 0x0f, 'a text frame').to.equal(1);
    ws.socket!.destroy();
    for (const origin of ['http://attacker.example', platform.web, tool.origin.replace('//editor-', '//code-'), undefined]) {
      const hijack = await toolUpgrade(url, { cookie: tool.cookie, ...(origin ? { origin } : {}) });
      hijack.socket?.destroy();
      expect(hijack.status, String(origin)).to.equal(403);
    }
  });

  it('refuses changes sent from another site (the token stands in for Jupyter’s XSRF check)', async () => {
    for (const headers of [{ origin: 'http://attacker.example' }, { 'sec-fetch-site': 'cross-site' }] as Array<Record<string, string>>) {
      const res = await send(developer, `${BASE}/api/contents`, { method: 'POST', json: { type: 'notebook' }, headers });
      expect(res.status, JSON.stringify(headers)).to.equal(403);
      expect(textOf(res.text)).to.include('This tool takes changes only from its own pages.');
    }
  });

  it('counts its use as activity of the instance for the sleep sweep: a visit by the developer, one per 5 minutes', async () => {
    const visits = async () => (await platform.infra.store.readStream(instanceStream('acme-dev'))).events.filter((event) => event.type === 'InstanceVisited');
    await send(developer, `${BASE}/api/status`);
    await waitUntil(async () => (await visits()).length > 0, 'a visit of acme-dev', 5000);
    const [visit] = await visits();
    const user = await findUserByEmail(platform.infra.db.withSchema('read_model'), USERS.developer);
    expect(visit!.metadata.actor).to.equal(user!.user_id);
    for (let i = 0; i < 5; i++) await send(developer, `${BASE}/api/status`);
    expect(await visits()).to.have.length(1);
  });

  it('answers a page naming the package when Jupyter is missing, and 502 when it cannot start', async () => {
    const { available, command } = notebookTool;
    try {
      notebookTool.available = () => NOTEBOOK_MISSING;
      const missing = await send(developer, '/instances/acme-new/editor/proxy/tree');
      expect(missing.status).to.equal(503);
      expect(textOf(missing.text)).to.include('install the Debian package jupyter-notebook');
      notebookTool.available = available;
      notebookTool.command = () => ({ file: '/bin/false', args: [], env: {} });
      const failed = await send(developer, '/instances/acme-new/editor/proxy/tree');
      expect(failed.status).to.equal(502);
      expect(textOf(failed.text)).to.include('The notebook editor could not be started for acme-new.');
    } finally {
      Object.assign(notebookTool, { available, command });
    }
  });

  it('stops after FORJA_TOOL_IDLE without a request, even with a tab left open, and starts again at the next one', async () => {
    const kernel = JSON.parse((await send(developer, `${BASE}/api/kernels`, { method: 'POST', json: { name: 'python3' } })).text) as { id: string };
    const server = notebookServer(platform, 'acme-dev')!;
    // A tab left open only answers the tool's pings: control frames (a masked, empty ping here) are no use.
    const tool = await toolOf(developer);
    const ws = await toolUpgrade(`${tool.origin}${BASE}/api/kernels/${kernel.id}/channels`, { cookie: tool.cookie, origin: tool.origin });
    expect(ws.status).to.equal(101);
    ws.socket!.on('error', () => undefined);
    const pinging = setInterval(() => ws.socket!.write(Buffer.from([0x89, 0x80, 1, 2, 3, 4])), 1000);
    try {
      await waitUntil(() => !alive(server.pid), 'the idle notebook server to stop', 30_000);
    } finally {
      clearInterval(pinging);
      ws.socket!.destroy();
    }
    const again = await send(developer, `${BASE}/api/status`);
    expect(again.status).to.equal(200);
    expect(notebookServer(platform, 'acme-dev')!.pid).to.not.equal(server.pid);
  });
});
