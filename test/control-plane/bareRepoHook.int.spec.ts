import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import express from 'express';
import { getProject } from '#projections/projects/projectDetail.ts';
import { controlPlaneContext } from '#services/control-plane/controlPlaneProcess.ts';
import type { ControlPlaneContext } from '#services/control-plane/context.ts';
import { gitHookApi } from '#services/control-plane/hooks/gitHook.api.ts';
import { decodeHookBody, parsePushPayload } from '#services/control-plane/hooks/pushPayload.ts';
import { errorHandler } from '#services/control-plane/http/errorHandler.ts';
import { webhookPath, webhookToken } from '#shared/auth/webhookToken.ts';
import type { EventMetadata } from '#shared/eventStore/eventStore.ts';
import { listen, type Listening } from '#shared/http/listen.ts';
import { silentLogger } from '#shared/log.ts';
import { schemaValidator, describeErrors } from '#shared/schemaValidator.ts';
import { createBareRepo, git, installPostReceiveHook, pushCommit, type BareRepo } from '#test/support/bareRepo.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A bare minimum receiver on 127.0.0.1 that keeps what the hook sends. */
async function receiver(): Promise<{ url: string; deliveries: Delivery[]; server: Server }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.end('{}');
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, deliveries, server };
}

const read = (delivery: Delivery) => parsePushPayload(delivery.headers, decodeHookBody(delivery.body, delivery.headers['content-type']));

async function workClone(bare: BareRepo): Promise<string> {
  const work = join(runDir('git-work'), 'work');
  await git('/', 'clone', '-q', bare.url, work);
  return work;
}

describe('the test post-receive hook', function () {
  this.timeout(30_000);
  let hook: Awaited<ReturnType<typeof receiver>>;
  let bare: BareRepo;

  before(async () => {
    hook = await receiver();
    bare = await createBareRepo('hooked', ['feature/x']);
    await installPostReceiveHook(bare, hook.url);
  });
  beforeEach(() => void hook.deliveries.splice(0));
  after(() => hook?.server.close());

  it('delivers a GitHub-shaped push the payload reader takes, by the time git push returns', async () => {
    const after = await pushCommit(bare, 'feature/x', 'hooked commit');
    expect(hook.deliveries).to.have.length(1);
    const [delivery] = hook.deliveries as [Delivery];
    expect(delivery.headers).to.include({ 'x-github-event': 'push', 'content-type': 'application/json' });
    expect(delivery.headers['x-github-delivery']).to.match(/^[\w-]{8,}$/);
    const body = JSON.parse(delivery.body.toString()) as Record<string, unknown>;
    expect(body).to.include({ ref: 'refs/heads/feature/x', after, deleted: false });
    expect(body['repository']).to.deep.include({ name: 'hooked', clone_url: bare.url });
    expect(read(delivery)).to.deep.equal({ host: 'github', event: 'push', pushes: [{ branch: 'feature/x', head: after }], ignored: 0 });
  });

  it('sends one delivery per ref of a push; tags and deletions read as ignored', async () => {
    const work = await workClone(bare);
    await git(work, 'tag', 'v1.0');
    await git(work, 'push', '-q', 'origin', 'v1.0', 'HEAD:refs/heads/release/1.0', ':refs/heads/feature/x');
    const head = await git(work, 'rev-parse', 'HEAD');
    expect(hook.deliveries).to.have.length(3);
    const results = hook.deliveries.map(read).sort((a, b) => a.ignored - b.ignored || JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(results).to.deep.equal([
      { host: 'github', event: 'push', pushes: [{ branch: 'release/1.0', head }], ignored: 0 },
      { host: 'github', event: 'push', pushes: [], ignored: 1 },
      { host: 'github', event: 'push', pushes: [], ignored: 1 },
    ]);
    const deleted = hook.deliveries.map((delivery) => JSON.parse(delivery.body.toString()) as { ref: string; deleted: boolean }).find((body) => body.deleted);
    expect(deleted?.ref).to.equal('refs/heads/feature/x');
  });

  it('escapes a branch name with a double quote', async () => {
    const head = await pushCommit(bare, 'odd"name', 'quoted');
    expect(read(hook.deliveries[0]!)).to.deep.equal({ host: 'github', event: 'push', pushes: [{ branch: 'odd"name', head }], ignored: 0 });
  });
});

describe('POST /webhooks/git/:project_slug/:token', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let server: Listening;
  let secret: string;
  let nonce: string | null;
  const calls: Array<{ project: string; branch: string; head: string | undefined; metadata: EventMetadata }> = [];
  const validResult = schemaValidator('api/GitHookResult.v1.json');

  /** Stands in for ctx.instances.rebuildForPush: every branch rebuilds `shared` and one instance of its own; `busy` waits for its job; `gone` is skipped. */
  const rebuildForPush: ControlPlaneContext['instances']['rebuildForPush'] = async (project, pushes, metadata) => {
    for (const { branch, head } of pushes) calls.push({ project, branch, head, metadata });
    const each = pushes.map(({ branch }) => ['shared', `${project}-${branch.replace(/\W/g, '-')}`]);
    return { rebuilt: each.flat(), deferred: pushes.map(() => 'busy'), skipped: pushes.map(() => ({ slug: 'gone', reason: 'gone is busy with a destroy job' })), lastGlobalPosition: undefined };
  };

  before(async () => {
    platform = await startTestPlatform();
    const ctx = await controlPlaneContext(platform.infra, platform.config, silentLogger);
    secret = ctx.secrets.webhookSecret;
    const created = await ctx.projects.create('Hook Target', { correlationId: 't', causationId: 't', actor: 'system', at: new Date().toISOString() });
    await ctx.waitForProjections(created.lastGlobalPosition, ['project_detail']);
    nonce = (await getProject(ctx.readModel, 'hook-target'))!.webhook_nonce;
    // As app.ts wires it: the hook before the app-wide 64 kB JSON parser, the error handler last.
    const app = express();
    gitHookApi(app, { ...ctx, instances: { ...ctx.instances, rebuildForPush } });
    app.use(express.json({ limit: '64kb' }));
    app.use(errorHandler(silentLogger));
    server = await listen(app, '127.0.0.1', 0);
  });
  beforeEach(() => void calls.splice(0));
  after(async () => {
    await server?.close();
    await platform?.stop();
  });

  const hookUrl = (slug = 'hook-target', token = webhookToken(secret, slug, nonce)) => `${server.url}/webhooks/git/${slug}/${token}`;
  /** A recorded delivery, its header names lower-cased so that a test can override one. */
  const recorded = (name: string) => {
    const { headers, body } = JSON.parse(readFileSync(new URL(`./fixtures/push/${name}.json`, import.meta.url), 'utf8')) as { headers: Record<string, string>; body: unknown };
    return { headers: Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value])), body };
  };
  const deliver = async (name: string, url = hookUrl()) => {
    const { headers, body } = recorded(name);
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const expectResult = (body: unknown) => expect(validResult(body), describeErrors(validResult)).to.equal(true);

  it('rebuilds on a real git push delivered by the post-receive hook', async () => {
    const bare = await createBareRepo('hook-target');
    await installPostReceiveHook(bare, hookUrl());
    const pushed = await pushCommit(bare, 'feature/x', 'pushed through the hook');
    await waitUntil(() => calls.length === 1, 'the hook delivery');
    expect(calls[0]).to.deep.include({ project: 'hook-target', branch: 'feature/x', head: pushed });
    expect(calls[0]!.metadata.actor).to.equal('system');
    expect(calls[0]!.metadata.correlationId).to.match(/^[0-9a-f-]{36}$/);
  });

  it('answers which branch was pushed and which instances were rebuilt', async () => {
    const { status, body } = await deliver('github-push');
    expect(status).to.equal(200);
    expectResult(body);
    expect(body).to.deep.equal({ project: 'hook-target', host: 'github', event: 'push', branch: 'feature/afip-wsfe', branches: ['feature/afip-wsfe'], rebuilt: ['shared', 'hook-target-feature-afip-wsfe'], deferred: ['busy'], skipped: [{ slug: 'gone', reason: 'gone is busy with a destroy job' }], ignored: 0 });
    expect(calls.map((call) => call.metadata.correlationId)).to.deep.equal(['8f5c2e40-9b1d-11ef-8e2a-3c1b7d5a0f11']);
  });

  it('rebuilds every branch of a several-change payload, each instance once', async () => {
    const { status, body } = await deliver('bitbucket-push');
    expect(status).to.equal(200);
    expectResult(body);
    expect(body).to.deep.include({ host: 'bitbucket', branch: 'main', branches: ['main', 'feature/afip'], rebuilt: ['shared', 'hook-target-main', 'hook-target-feature-afip'], deferred: ['busy'], skipped: [{ slug: 'gone', reason: 'gone is busy with a destroy job' }], ignored: 2 });
    expect(calls.map((call) => call.branch)).to.deep.equal(['main', 'feature/afip']);
    expect(calls.map((call) => call.metadata.correlationId)).to.deep.equal(['a9b8c7d6-e5f4-4a3b-2c1d-0e9f8a7b6c5d', 'a9b8c7d6-e5f4-4a3b-2c1d-0e9f8a7b6c5d']);
  });

  it('answers a ping, a tag and a deletion with 200 and rebuilds nothing', async () => {
    for (const [name, event, ignored] of [['github-ping', 'ping', 0], ['gitlab-tag-push', 'push', 1], ['gitlab-delete', 'push', 1]] as const) {
      const { status, body } = await deliver(name);
      expect(status, name).to.equal(200);
      expectResult(body);
      expect(body, name).to.deep.include({ event, branch: null, branches: [], rebuilt: [], deferred: [], skipped: [], ignored });
    }
    expect(calls).to.deep.equal([]);
  });

  it('takes GitHub’s form encoding and bodies far above the app’s 64 kB JSON limit', async () => {
    const { headers, body } = recorded('github-push');
    const big = { ...(body as object), commits: Array.from({ length: 3000 }, (_, index) => ({ id: index.toString(16).padStart(40, '0'), message: 'x'.repeat(400) })) };
    const form = new URLSearchParams({ payload: JSON.stringify(big) }).toString();
    expect(form.length).to.be.above(1024 * 1024);
    const res = await fetch(hookUrl(), { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.include({ branch: 'feature/afip-wsfe' });
    const huge = await fetch(hookUrl(), { method: 'POST', headers, body: JSON.stringify({ ...big, padding: 'x'.repeat(6 * 1024 * 1024) }) });
    expect(huge.status).to.equal(413);
  });

  it('answers 400 with the reason to a payload it cannot read', async () => {
    const cases: Array<[RequestInit, string]> = [
      [{ headers: { 'content-type': 'text/plain', 'x-github-event': 'push' }, body: 'refs/heads/main' }, 'the body must be application/json or application/x-www-form-urlencoded with a payload field, not text/plain'],
      [{ headers: { 'content-type': 'application/json', 'x-github-event': 'push' }, body: '{"ref":' }, 'the body is not valid JSON'],
      [{ headers: { 'content-type': 'application/json', 'x-github-event': 'push' }, body: '{"after":"abc"}' }, 'the payload has no ref'],
      [{ headers: { 'content-type': 'application/json', 'x-github-event': 'issues' }, body: '{"action":"opened"}' }, 'not a push: X-GitHub-Event issues'],
      [{ headers: { 'content-type': 'application/json' } }, 'the body is empty'],
    ];
    for (const [init, detail] of cases) {
      const res = await fetch(hookUrl(), { method: 'POST', ...init });
      expect(res.status, detail).to.equal(400);
      expect(((await res.json()) as { detail: string }).detail).to.include(detail);
    }
    expect(calls).to.deep.equal([]);
  });

  it('answers 403 to a wrong token and 404 to an unknown or deleted project', async () => {
    const wrong = await deliver('github-push', hookUrl('hook-target', webhookToken('another secret', 'hook-target', nonce)));
    expect(wrong).to.deep.equal({ status: 403, body: { detail: 'wrong hook token for project hook-target' } });
    expect((await deliver('github-push', `${server.url}${webhookPath(secret, 'hook-target', nonce)}x`)).status).to.equal(403);
    expect((await deliver('github-push', hookUrl('hook-target', webhookToken(secret, 'hook-target', null)))).status, 'the slug-only token of old').to.equal(403);
    expect((await deliver('github-push', `${server.url}/webhooks/git/%00/${'f'.repeat(64)}`)).status, 'a slug PostgreSQL would refuse').to.equal(404);
    expect((await deliver('github-push', hookUrl('ghost', 'f'.repeat(64)))).status, 'an unknown project, whatever the token').to.equal(404);
    expect(await deliver('github-push', hookUrl('ghost'))).to.deep.equal({ status: 404, body: { detail: 'no project ghost' } });
    expect(calls).to.deep.equal([]);
  });

  it('correlates with the host’s delivery id when it looks like one', async () => {
    const { headers, body } = recorded('gitlab-push');
    await fetch(hookUrl(), { method: 'POST', headers, body: JSON.stringify(body) });
    await fetch(hookUrl(), { method: 'POST', headers: { ...headers, 'x-gitlab-event-uuid': 'not a uuid; drop table' }, body: JSON.stringify(body) });
    expect(calls[0]!.metadata.correlationId).to.equal('5b0e6a7c-3d2f-4b8e-9a1c-7e6d5f4c3b2a');
    expect(calls[1]!.metadata.correlationId).to.match(/^[0-9a-f-]{36}$/).and.not.equal('5b0e6a7c-3d2f-4b8e-9a1c-7e6d5f4c3b2a');
  });
});
