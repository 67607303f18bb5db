import { expect } from 'chai';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

interface MigrationBody {
  slug: string;
  status: string;
  contract: string | null;
  recipe: { keys: string[]; sha256: string };
  input: { mode: string; pull_url: string | null };
  last_run: { number: number; status: string } | null;
  allowed_actions: string[];
  purpose: string;
  ignored?: string[];
}
interface RunBody {
  number: number;
  status: string;
  kind: string;
  steps?: Array<{ id: string; phase: string; status: string }>;
}
type ErrorBody = { detail: unknown };

const validMigration = schemaValidator('api/MigrationOut.v1.json');
const validRun = schemaValidator('api/RunOut.v1.json');
const PULL_URL = 'https://files.example.com/acme.dump';

/** The migration API without an executor: what the control-plane decides and shows. */
describe('migration API (no executor)', function () {
  this.timeout(60_000);
  let platform: TestPlatform;

  before(async () => {
    platform = await startTestPlatform();
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('viewer@example.com', 'viewer');
  });
  after(() => platform?.stop());

  const call = (path: string, init: RequestInit & { as?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', basic(init.as ?? 'dev@example.com'));
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${platform.urls.controlPlane}${path}`, { ...init, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  };
  const post = (path: string, json: unknown = {}) => call(path, { method: 'POST', json });
  const create = (json: Record<string, unknown>) => post('/api/v1/migrations', json);
  const migration = async (res: Response, status = 200) => {
    expect(res.status, await res.clone().text()).to.equal(status);
    const body = (await res.json()) as MigrationBody;
    expect(validMigration(body), describeErrors(validMigration)).to.equal(true);
    return body;
  };
  const run = async (res: Response, status = 200) => {
    expect(res.status, await res.clone().text()).to.equal(status);
    const body = (await res.json()) as RunBody;
    expect(validRun(body), describeErrors(validRun)).to.equal(true);
    return body;
  };
  const refusal = async (res: Response, status: number) => {
    expect(res.status).to.equal(status);
    return JSON.stringify(((await res.json()) as ErrorBody).detail);
  };

  it('creates a draft from a pull_url: recipe snapshotted, contract masked, credentials never shown', async () => {
    const body = await migration(
      await create({ name: 'Acme to 17', origin: '16.0', destination: '17.0', pull_url: 'https://ana:s3cret@files.example.com/acme.dump', contract: 'M1234-5678-ABCD' }),
      201,
    );
    expect(body).to.include({ slug: 'acme-to-17', status: 'draft', contract: '…ABCD', purpose: 'test', last_run: null });
    expect(body.recipe.keys).to.deep.equal(['community.16.0-17.0']);
    expect(body.input).to.deep.include({ mode: 'pull', pull_url: 'https://files.example.com/acme.dump' });
    expect(body.allowed_actions).to.deep.equal(['run', 'delete']);
    const again = await migration(await create({ name: 'Acme to 17', origin: '16.0', destination: '17.0', pull_url: PULL_URL }), 201);
    expect(again.slug).to.equal('acme-to-17-2');
  });

  it('chains one recipe per hop for a multi-version route', async () => {
    const body = await migration(await create({ name: 'Long way', origin: '16.0', destination: '19.0', pull_url: PULL_URL, flavor: 'enterprise', contract: 'M999-XYZW' }), 201);
    expect(body.recipe.keys).to.deep.equal(['enterprise.16.0-17.0', 'enterprise.17.0-18.0', 'enterprise.18.0-19.0']);
  });

  it('refuses bad input with a 422 naming the field', async () => {
    expect(await refusal(await create({ name: 'Back', origin: '17.0', destination: '16.0', pull_url: PULL_URL }), 422)).to.match(/destination.*must be newer/);
    expect(await refusal(await create({ name: 'Ent', origin: '16.0', destination: '17.0', flavor: 'enterprise', engine: 'openupgrade', pull_url: PULL_URL }), 422)).to.match(/engine.*upgrade-service engine/);
    expect(await refusal(await create({ name: 'No contract', origin: '16.0', destination: '17.0', engine: 'upgrade-service', pull_url: PULL_URL }), 422)).to.match(/contract/);
    expect(await refusal(await create({ name: 'Local', origin: '16.0', destination: '17.0', pull_url: 'http://127.0.0.1:8080/x.dump' }), 422)).to.match(/pull_url.*loopback/);
    expect(await refusal(await create({ name: 'Meta', origin: '16.0', destination: '17.0', pull_url: 'http://169.254.169.254/latest' }), 422)).to.match(/pull_url/);
    expect(await refusal(await create({ name: 'Ftp', origin: '16.0', destination: '17.0', pull_url: 'ftp://files.example.com/x' }), 422)).to.match(/pull_url/);
    expect(await refusal(await create({ name: 'Old', origin: '15.0', destination: '16.0', pull_url: PULL_URL }), 422)).to.match(/origin/);
    expect(await refusal(await create({ name: 'No input', origin: '16.0', destination: '17.0' }), 422)).to.match(/pull_url/);
    expect((await call('/api/v1/migrations', { method: 'POST', json: { name: 'Viewer', origin: '16.0', destination: '17.0', pull_url: PULL_URL }, as: 'viewer@example.com' })).status).to.equal(403);
  });

  it('lists by status and name, and refuses an unknown status', async () => {
    const all = (await (await call('/api/v1/migrations')).json()) as MigrationBody[];
    expect(all.map((row) => row.slug)).to.include.members(['acme-to-17', 'acme-to-17-2', 'long-way']);
    const found = (await (await call('/api/v1/migrations?search=LONG')).json()) as MigrationBody[];
    expect(found.map((row) => row.slug)).to.deep.equal(['long-way']);
    expect(((await (await call('/api/v1/migrations?status_filter=migrated')).json()) as MigrationBody[]).length).to.equal(0);
    expect(await refusal(await call('/api/v1/migrations?status_filter=done'), 422)).to.match(/status_filter/);
    expect(await refusal(await call('/api/v1/migrations?search=a%00b'), 422)).to.match(/search.*control characters/);
    expect((await call('/api/v1/migrations/nope')).status).to.equal(404);
  });

  it('runs, refuses a second run, pauses, resumes, and stops back to draft keeping the run numbers', async () => {
    const slug = 'acme-to-17-2';
    const first = await run(await post(`/api/v1/migrations/${slug}/run`), 201);
    expect(first).to.include({ number: 1, status: 'queued', kind: 'run' });
    expect(first.steps!.filter((step) => step.phase === 'preflight').length).to.be.greaterThan(0);
    expect(first.steps!.every((step) => step.status === 'pending')).to.equal(true);
    expect((await migration(await call(`/api/v1/migrations/${slug}`))).status).to.equal('queued');
    expect(await refusal(await post(`/api/v1/migrations/${slug}/run`), 409)).to.match(/is queued; pause or stop/);
    expect(await refusal(await post(`/api/v1/migrations/${slug}/run-anyway`, { reason: 'why not' }), 409)).to.match(/only overrides a run that failed in pre-flight/);
    expect((await migration(await post(`/api/v1/migrations/${slug}/pause`))).status).to.equal('paused');
    expect(await refusal(await post(`/api/v1/migrations/${slug}/pause`), 409)).to.match(/cannot pause/);
    expect((await migration(await post(`/api/v1/migrations/${slug}/resume`))).status).to.equal('queued');
    expect(await refusal(await post(`/api/v1/migrations/${slug}/runs/1/resume`, { decision: 'approve' }), 409)).to.match(/not waiting at a gate/);
    const runs = (await (await call(`/api/v1/migrations/${slug}/runs`)).json()) as RunBody[];
    expect(runs.map((row) => row.number)).to.deep.equal([1]);
    expect((await run(await call(`/api/v1/migrations/${slug}/runs/1`))).steps!.length).to.equal(first.steps!.length);
    expect((await call(`/api/v1/migrations/${slug}/runs/9`)).status).to.equal(404);
    expect(await refusal(await call(`/api/v1/migrations/${slug}/runs/0`), 422)).to.match(/number/);
    const stopped = await migration(await post(`/api/v1/migrations/${slug}/stop`));
    expect(stopped).to.include({ status: 'draft', last_run: null });
    expect(await (await call(`/api/v1/migrations/${slug}/runs`)).json()).to.deep.equal([]);
    expect((await run(await post(`/api/v1/migrations/${slug}/run`), 201)).number, 'numbers go on after a stop').to.equal(2);
    expect(await refusal(await post('/api/v1/migrations/acme-to-17/stop'), 409)).to.match(/draft already/);
  });

  it('edits a draft’s purpose, and afterwards only the contract, saying what it ignored', async () => {
    const draft = await migration(await call('/api/v1/migrations/acme-to-17', { method: 'PATCH', json: { purpose: 'production', notify_to: ['ops@example.com'] } }));
    expect(draft).to.include({ purpose: 'production' });
    expect(draft.ignored).to.deep.equal([]);
    const running = await migration(await call('/api/v1/migrations/acme-to-17-2', { method: 'PATCH', json: { purpose: 'production', contract: 'M55-QRST' } }));
    expect(running).to.include({ purpose: 'test', contract: '…QRST' });
    expect(running.ignored).to.deep.equal(['purpose']);
    expect(await refusal(await call('/api/v1/migrations/acme-to-17', { method: 'PATCH', json: { destination: '16.0' } }), 422)).to.match(/destination/);
  });

  it('deletes only with the typed name', async () => {
    expect(await refusal(await call('/api/v1/migrations/long-way', { method: 'DELETE', json: { confirm_name: 'long' } }), 422)).to.match(/type the migration's name/);
    expect((await call('/api/v1/migrations/long-way', { method: 'DELETE', json: { confirm_name: 'Long way' } })).status).to.equal(204);
    expect((await call('/api/v1/migrations/long-way')).status).to.equal(404);
    expect((await call('/api/v1/migrations/long-way/run', { method: 'POST' })).status).to.equal(404);
  });
});
