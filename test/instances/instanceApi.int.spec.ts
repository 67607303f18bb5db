import { expect } from 'chai';
import { STATUSES } from '#services/instances/domain/instance.ts';
import { describeErrors, schemaDocument, schemaValidator } from '#shared/schemaValidator.ts';
import { jobPlayer } from '#test/support/instanceJobs.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

interface Out {
  slug: string;
  modules: string[];
  git_repo: string | null;
  job: { kind: string; active: boolean; steps: Array<{ step: string }> };
}
const out = async (res: Response) => (await res.json()) as Out;
const detailOf = async (res: Response) => ((await res.json()) as { detail: unknown }).detail;
const list = async (res: Response) => (await res.json()) as Out[];

/** The instance API without an executor: what the control-plane decides and shows. */
describe('instance API (no executor)', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let api: string;

  before(async () => {
    platform = await startTestPlatform();
    api = platform.urls.controlPlane!;
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('viewer@example.com', 'viewer');
  });
  after(() => platform?.stop());

  const call = (path: string, init: RequestInit & { as?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', basic(init.as ?? 'dev@example.com'));
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${api}${path}`, { ...init, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  };
  const create = (json: Record<string, unknown>, as?: string) => call('/api/v1/instances', { method: 'POST', json, ...(as ? { as } : {}) });

  it('creates an instance with defaults, creating its project, queued', async () => {
    const res = await create({ name: 'Dev', project: 'Acme Corp', erp_version: '17.0' });
    expect(res.status).to.equal(201);
    expect(res.headers.get('location')).to.equal('/api/v1/instances/acme-corp-dev');
    const body = await out(res);
    expect(body).to.include({ slug: 'acme-corp-dev', name: 'Dev', project: 'acme-corp', stage: 'development', erp_version: '17.0', edition: 'community', branch: 'main', status: 'queued', url: null, last_error: null, git_repo: null });
    expect(body.modules).to.deep.equal([]);
    expect(body.job.kind).to.equal('provision');
    expect(body.job.steps.map((step) => step.step)).to.deep.equal(['resolve_source', 'fetch_code', 'database', 'build', 'install_modules', 'start', 'health_check']);
    const project = await (await call('/api/v1/projects/acme-corp')).json();
    expect(project).to.include({ name: 'Acme Corp' });
  });

  it('inherits the project repository unless given, and keeps modules unique', async () => {
    await call('/api/v1/projects/acme-corp/repository', { method: 'PUT', json: { git_repo: 'ssh://git@git.example.com/acme.git' } });
    const inherited = await out(await create({ name: 'Feature', project: 'acme-corp', erp_version: '18.0', modules: ['sale', 'sale', 'stock'], branch: 'feature/x' }));
    expect(inherited).to.include({ git_repo: 'ssh://git@git.example.com/acme.git', branch: 'feature/x' });
    expect(inherited.modules).to.deep.equal(['sale', 'stock']);
    const own = await out(await create({ name: 'Other', project: 'Acme Corp', erp_version: '18.0', git_repo: 'https://git.example/x.git' }));
    expect(own.git_repo).to.equal('https://git.example/x.git');
  });

  it('creates several instances of a new project at once, all in that one project', async () => {
    const created = await Promise.all(Array.from({ length: 5 }, (_, i) => create({ name: `burst ${i}`, project: 'Burst Co', erp_version: '17.0' })));
    expect(created.map((res) => res.status)).to.deep.equal([201, 201, 201, 201, 201]);
    const projects = new Set((await Promise.all(created.map(out))).map((body) => body.slug.replace(/-burst-\d$/, '')));
    expect([...projects]).to.deep.equal(['burst-co']);
  });

  it('derives a unique slug', async () => {
    const again = await out(await create({ name: 'Dev', project: 'acme-corp', erp_version: '17.0' }));
    expect(again.slug).to.equal('acme-corp-dev-2');
  });

  it('refuses invalid input with 422 naming the field', async () => {
    for (const [json, field] of [
      [{ name: 'x', project: 'p', erp_version: '15.0' }, 'erp_version'],
      [{ name: 'x', project: 'p', erp_version: '17.0', stage: 'qa' }, 'stage'],
      [{ name: 'x', project: 'p', erp_version: '17.0', edition: 'pro' }, 'edition'],
      [{ name: 'x', project: 'p', erp_version: '17.0', modules: ['Bad Module'] }, 'modules'],
      [{ name: 'x', project: 'p', erp_version: '17.0', branch: '-rf' }, 'branch'],
      [{ name: 'x', project: 'p', erp_version: '17.0', git_repo: 'https://h/x.git;rm -rf /' }, 'git_repo'],
      [{ name: 'x', project: 'p', erp_version: '17.0', clone_from: 'nope' }, 'clone_from'],
      [{ project: 'p', erp_version: '17.0' }, 'name'],
    ] as const) {
      const res = await create(json);
      expect(res.status, JSON.stringify(json)).to.equal(422);
      const detail = await detailOf(res);
      expect(JSON.stringify(detail), JSON.stringify(json)).to.contain(field);
    }
    const upload = await create({ name: 'x', project: 'p', erp_version: '17.0', upload: { upload_id: '0b9e4c1e-2f7a-4c1d-9d2e-1f0a8b7c6d5e', dump_format: 'plain', has_filestore: false } });
    expect(upload.status).to.equal(422);
    expect((await call('/api/v1/projects/p')).status, 'nothing was created for refused input').to.equal(404);
  });

  it('installs demo data only on a development instance that asks for it: 422 naming demo_data elsewhere (issue 25)', async () => {
    const demo = await create({ name: 'Demo', project: 'Demo Co', erp_version: '18.0', demo_data: true });
    expect(demo.status).to.equal(201);
    expect(await out(demo)).to.include({ stage: 'development', demo_data: true });
    expect(await out(await create({ name: 'Plain', project: 'Demo Co', erp_version: '18.0' }))).to.include({ demo_data: false });
    for (const stage of ['staging', 'production']) {
      const refused = await create({ name: `Demo ${stage}`, project: 'Demo Co', erp_version: '18.0', stage, demo_data: true });
      expect(refused.status, stage).to.equal(422);
      expect(JSON.stringify(await detailOf(refused))).to.contain('demo_data').and.contain(`demo data is for development instances only, not ${stage}`);
    }
    expect((await create({ name: 'Staging', project: 'Demo Co', erp_version: '18.0', stage: 'staging', demo_data: false })).status, 'saying no is fine anywhere').to.equal(201);
  });

  it('allows one production instance per project (409)', async () => {
    expect((await create({ name: 'Prod', project: 'Solo', erp_version: '17.0', stage: 'production' })).status).to.equal(201);
    const second = await create({ name: 'Prod 2', project: 'Solo', erp_version: '17.0', stage: 'production' });
    expect(second.status).to.equal(409);
    expect(await detailOf(second)).to.match(/already has a production instance \(solo-prod\)/);
  });

  it('lists with stage and status filters; unknown filter values are 422', async () => {
    const all = await list(await call('/api/v1/instances'));
    expect(all.length).to.be.at.least(5);
    const production = await list(await call('/api/v1/instances?stage=production'));
    expect(production.map((row) => row.slug)).to.deep.equal(['solo-prod']);
    expect(await list(await call('/api/v1/instances?status_filter=running'))).to.deep.equal([]);
    expect((await call('/api/v1/instances?stage=qa')).status).to.equal(422);
    const bogus = await call('/api/v1/instances?status_filter=bogus');
    expect(bogus.status).to.equal(422);
    expect(await detailOf(bogus)).to.deep.equal([{ loc: ['query', 'status_filter'], msg: `status_filter must be one of ${STATUSES.join(', ')}`, type: 'value_error.enum' }]);
  });

  it('documents the domain’s statuses in InstanceOut', () => {
    const status = (schemaDocument('api/InstanceOut.v1.json')['properties'] as Record<string, { enum: string[] }>)['status']!;
    expect([...status.enum].sort()).to.deep.equal([...STATUSES].sort());
  });

  it('names the allowed values when an enum field is wrong, as status_filter does', async () => {
    const res = await create({ name: 'x', project: 'p', erp_version: '15.0', stage: 'qa' });
    expect(res.status).to.equal(422);
    expect(await detailOf(res)).to.deep.equal([
      { loc: ['body', 'stage'], msg: 'must be one of development, staging, production', type: 'value_error.enum' },
      { loc: ['body', 'erp_version'], msg: 'must be one of 19.0, 18.0, 17.0, 16.0', type: 'value_error.enum' },
    ]);
  });

  it('shows the commit it runs, the branch head, behind, the port and a rebuild a push left pending', async () => {
    const player = jobPlayer(platform);
    const slug = (await out(await create({ name: 'Tracked', project: 'Tracking Co', erp_version: '18.0', git_repo: 'ssh://git@git.example.com/tracking.git' }))).slug;
    const [head, newer] = ['3f2a9c1d4e5b6a7980112233445566778899aabb', 'c0ffee00112233445566778899aabbccddeeff00'];
    await player.run(slug, { resolve_source: { branchHead: head }, fetch_code: { commit: head }, start: { url: 'http://127.0.0.1:18074', port: 18074 } });
    expect(await (await call(`/api/v1/instances/${slug}`)).json()).to.include({ status: 'running', commit: head, branch_head: head, behind: false, rebuild_pending: false, port: 18074 });
    expect((await call(`/api/v1/instances/${slug}/action`, { method: 'POST', json: { action: 'stop' } })).status).to.equal(200);
    await player.push(slug, newer);
    const pending = (await (await call(`/api/v1/instances/${slug}`)).json()) as Record<string, unknown>;
    expect(pending).to.include({ commit: head, branch_head: newer, behind: true, rebuild_pending: true });
    const validate = schemaValidator('api/InstanceOut.v1.json');
    expect(validate(pending), describeErrors(validate)).to.equal(true);
    const listed = (await list(await call('/api/v1/instances'))).find((row) => row.slug === slug);
    expect(listed, 'the list has no detail fields').to.include.keys('slug').and.not.have.any.keys('commit', 'behind');
  });

  it('refuses actions that do not fit the state with 409, and unknown ones with 422', async () => {
    const busy = await call('/api/v1/instances/acme-corp-dev/action', { method: 'POST', json: { action: 'stop' } });
    expect(busy.status).to.equal(409);
    expect(await detailOf(busy)).to.match(/busy with a provision job/);
    expect((await call('/api/v1/instances/acme-corp-dev/action', { method: 'POST', json: { action: 'explode' } })).status).to.equal(422);
    expect((await call('/api/v1/instances/nope/action', { method: 'POST', json: { action: 'stop' } })).status).to.equal(404);
  });

  it('lets a viewer read but not create or act (403)', async () => {
    expect((await call('/api/v1/instances/acme-corp-dev', { as: 'viewer@example.com' })).status).to.equal(200);
    expect((await create({ name: 'V', project: 'acme-corp', erp_version: '17.0' }, 'viewer@example.com')).status).to.equal(403);
    expect((await call('/api/v1/instances/acme-corp-dev/action', { method: 'POST', json: { action: 'destroy' }, as: 'viewer@example.com' })).status).to.equal(403);
  });

  it('destroys a queued instance (superseding its job) and answers 404 for unknown slugs', async () => {
    const res = await call('/api/v1/instances/acme-corp-dev-2/action', { method: 'POST', json: { action: 'destroy' } });
    expect(res.status).to.equal(200);
    expect((await out(res)).job).to.include({ kind: 'destroy', active: true });
    expect((await call('/api/v1/instances/missing')).status).to.equal(404);
    expect((await call('/api/v1/instances/Bad_Slug')).status).to.equal(422);
  });
});
