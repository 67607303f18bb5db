import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RECIPE_FILES_DIR } from '#services/migrations/recipes/recipeFiles.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

interface ResyncBody {
  up_to_date: boolean;
  from: { sha256: string };
  to: { sha256: string } | null;
  current_error: string | null;
  steps: Array<{ id: string; change: string; fields: string[] }>;
  diff: string;
}
const validResync = schemaValidator('api/ResyncOut.v1.json');

describe('resync API: a migration’s snapshot against the current recipe, adopt or keep', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let shipped: string;

  before(async () => {
    platform = await startTestPlatform();
    await platform.createUser('admin@example.com', 'admin');
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('viewer@example.com', 'viewer');
    shipped = await readFile(join(RECIPE_FILES_DIR, 'community', '16.0-17.0.yaml'), 'utf8');
  });
  after(() => platform?.stop());

  const call = (path: string, init: { method?: string; as?: string; json?: unknown } = {}) =>
    fetch(`${platform.urls.controlPlane}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: basic(init.as ?? 'dev@example.com'), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  const view = async (slug: string) => {
    const res = await call(`/api/v1/migrations/${slug}/resync`, { as: 'viewer@example.com' });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as ResyncBody;
    expect(validResync(body), describeErrors(validResync)).to.equal(true);
    return body;
  };
  const decide = (slug: string, decision: string, as = 'dev@example.com') => call(`/api/v1/migrations/${slug}/resync`, { method: 'POST', as, json: { decision } });

  it('shows no difference for a new migration and refuses a decision with nothing to decide', async () => {
    const created = await call('/api/v1/migrations', { method: 'POST', json: { name: 'Fresh', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/a.dump' } });
    expect(created.status).to.equal(201);
    const body = await view('fresh');
    expect(body.up_to_date).to.equal(true);
    expect(body.steps.every((row) => row.change === 'same')).to.equal(true);
    expect((await decide('fresh', 'adopt')).status).to.equal(409);
  });

  it('shows the changed, added and removed steps and the YAML diff after the recipe is edited; keep changes nothing, adopt takes the current recipe', async () => {
    expect((await call('/api/v1/migrations', { method: 'POST', json: { name: 'Acme', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/a.dump' } })).status).to.equal(201);
    const edited = shipped
      .replace('    timeout: 8h\n', '    timeout: 10h\n')
      .replace('  - { id: demo_off, kind: sql, sql: "update ir_module_module set demo = false" }\n', '')
      .replace('  - { id: dump_result, kind: dump }\n', '  - { id: dump_result, kind: dump }\n  - { id: count_partners, kind: check, severity: warning, sql: "select count(*) from res_partner" }\n');
    const saved = await call('/api/v1/recipes/community/16.0-17.0', { method: 'PUT', as: 'admin@example.com', json: { yaml: edited } });
    expect(saved.status, await saved.clone().text()).to.equal(200);

    const before = await view('acme');
    expect(before.up_to_date).to.equal(false);
    const byId = Object.fromEntries(before.steps.map((row) => [row.id, row]));
    expect(byId['upgrade']).to.deep.include({ change: 'changed', fields: ['timeoutS'] });
    expect(byId['demo_off']?.change).to.equal('removed');
    expect(byId['count_partners']?.change).to.equal('added');
    expect(before.diff).to.include('-    timeout: 8h').and.include('+    timeout: 10h');

    expect((await decide('acme', 'keep', 'viewer@example.com')).status).to.equal(403);
    expect((await decide('acme', 'maybe')).status).to.equal(422);
    expect((await decide('acme', 'keep')).status).to.equal(200);
    expect((await view('acme')).from.sha256, 'keep leaves the snapshot').to.equal(before.from.sha256);

    const adopted = await decide('acme', 'adopt');
    expect(adopted.status).to.equal(200);
    const out = (await adopted.json()) as { recipe: { sha256: string } };
    const after = await view('acme');
    expect(after.up_to_date).to.equal(true);
    expect(out.recipe.sha256).to.equal(after.from.sha256).and.not.equal(before.from.sha256);
    expect((await decide('acme', 'keep')).status).to.equal(409);

    // The run the migration makes next follows the adopted recipe.
    const run = await call('/api/v1/migrations/acme/run', { method: 'POST', json: {} });
    expect(run.status).to.equal(201);
    const steps = ((await (await call('/api/v1/migrations/acme/runs/1')).json()) as { steps: Array<{ id: string }> }).steps.map((step) => step.id);
    expect(steps).to.include('count_partners').and.not.include('demo_off');
    expect((await decide('acme', 'adopt')).status, 'a live run is never resynced').to.equal(409);
  });

  it('answers 404 for an unknown migration', async () => {
    expect((await call('/api/v1/migrations/nobody/resync')).status).to.equal(404);
  });
});
