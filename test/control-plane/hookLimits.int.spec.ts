import { expect } from 'chai';
import { getProject } from '#projections/projects/projectDetail.ts';
import { webhookPath } from '#shared/auth/webhookToken.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

/** A Bitbucket Cloud push of `count` changes, each a new commit on its own branch (`main` first). */
function bitbucketPush(count: number): string {
  const changes = Array.from({ length: count }, (_, i) => ({ new: { type: 'branch', name: i === 0 ? 'main' : `feature/${i}`, target: { hash: i.toString(16).padStart(40, '0') } }, old: null }));
  return JSON.stringify({ push: { changes } });
}

/**
 * Issue 10, item 15: a Bitbucket delivery of 40,000 branches cost the control-plane 17 s of
 * queries (the project's instances read once per branch). Against the real control-plane and its
 * database: such a delivery is refused at once, and one within the cap is answered quickly.
 */
describe('the push hook under a delivery of many branches', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let hook: string;

  before(async () => {
    platform = await startTestPlatform();
    const api = platform.urls.controlPlane!;
    await platform.createUser('dev@example.com', 'developer');
    const res = await fetch(`${api}/api/v1/instances`, {
      method: 'POST',
      headers: { authorization: basic('dev@example.com'), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'dev', project: 'Many Branches', erp_version: '17.0' }),
    });
    expect(res.status).to.equal(201);
    const project = await getProject(platform.infra.db.withSchema('read_model'), 'many-branches');
    hook = `${api}${webhookPath(resolvePlatformSecrets(platform.config).webhookSecret, 'many-branches', project!.webhook_nonce)}`;
  });
  after(() => platform?.stop());

  const deliver = async (body: string) => {
    const started = performance.now();
    const res = await fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json', 'x-event-key': 'repo:push' }, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: performance.now() - started };
  };

  it('refuses 40,000 branches in under a second with 413 and the reason, recording nothing', async () => {
    const body = bitbucketPush(40_000);
    expect(body.length, 'within the hook’s 5 MB body limit').to.be.below(5 * 1024 * 1024);
    const before = await platform.infra.store.headPosition();
    const { status, body: answer, ms } = await deliver(body);
    expect(status).to.equal(413);
    expect(answer).to.deep.equal({
      detail: 'the delivery pushes more than 100 branches; Forja takes at most 100 per delivery: push fewer branches at once, or rebuild the instances by hand',
    });
    expect(ms).to.be.below(1000);
    expect(await platform.infra.store.headPosition(), 'no event appended').to.equal(before);
  });

  it('takes 100 branches in one delivery, reading the project’s instances once, and defers the busy instance on main', async () => {
    const { status, body, ms } = await deliver(bitbucketPush(100));
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body).to.deep.include({ branch: 'main', rebuilt: [], deferred: ['many-branches-dev'], skipped: [], ignored: 0 });
    expect(body['branches']).to.have.length(100);
    expect(ms).to.be.below(1000);
  });
});
