import { expect } from 'chai';
import { recipeBook } from '#services/control-plane/migrations/recipeBook.ts';
import { recipeDigest } from '#services/migrations/recipes/recipeDigest.ts';
import { loadRecipeFiles } from '#services/migrations/recipes/recipeFiles.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

interface Finding {
  level: string;
  line: number | null;
  column: number | null;
  message: string;
}
interface RecipeBody {
  key: string;
  version: number;
  origin: string;
  saved_by: string;
  usable: boolean;
  errors: Finding[];
  warnings: Finding[];
  used_by: Array<{ slug: string; version: number | null }>;
  yaml?: string;
}
type Issue = { loc: Array<string | number>; msg: string };

const validRecipe = schemaValidator('api/RecipeOut.v1.json');
const KEY = 'community.17.0-18.0';

describe('recipe API: recipes live in streams seeded from the shipped files', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let shipped: string;

  before(async () => {
    platform = await startTestPlatform();
    await platform.createUser('admin@example.com', 'admin');
    await platform.createUser('dev@example.com', 'developer');
    await platform.createUser('viewer@example.com', 'viewer');
    shipped = (await loadRecipeFiles()).find((file) => file.key === KEY)!.text;
  });
  after(() => platform?.stop());

  const call = (path: string, init: RequestInit & { as?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', basic(init.as ?? 'admin@example.com'));
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${platform.urls.controlPlane}${path}`, { ...init, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  };
  const put = (yaml: string, as = 'admin@example.com', key = KEY) => call(`/api/v1/recipes/${key.replace('.', '/')}`, { method: 'PUT', json: { yaml }, as });
  const recipe = async (res: Response) => {
    expect(res.status, await res.clone().text()).to.equal(200);
    const body = (await res.json()) as RecipeBody;
    expect(validRecipe(body), describeErrors(validRecipe)).to.equal(true);
    return body;
  };
  const issues = async (res: Response) => {
    expect(res.status, await res.clone().text()).to.equal(422);
    return ((await res.json()) as { detail: Issue[] }).detail;
  };

  it('lists the six shipped recipes as version 1 by system, usable; developers read, viewers do not', async () => {
    const res = await call('/api/v1/recipes', { as: 'dev@example.com' });
    const list = (await res.json()) as RecipeBody[];
    expect(list.map((row) => row.key)).to.deep.equal([
      'community.16.0-17.0',
      'community.17.0-18.0',
      'community.18.0-19.0',
      'enterprise.16.0-17.0',
      'enterprise.17.0-18.0',
      'enterprise.18.0-19.0',
    ]);
    for (const row of list) {
      expect(validRecipe(row), describeErrors(validRecipe)).to.equal(true);
      expect(row).to.include({ version: 1, origin: 'shipped', saved_by: 'system', usable: true });
    }
    expect((await call('/api/v1/recipes', { as: 'viewer@example.com' })).status).to.equal(403);
  });

  it('saves an edit as version 2 (admin only), and the same text again as nothing new', async () => {
    const edited = shipped.replace('defaults: { timeout: 2h', 'defaults: { timeout: 3h');
    expect(edited).to.not.equal(shipped);
    expect((await put(edited, 'dev@example.com')).status).to.equal(403);
    const saved = await recipe(await put(edited));
    expect(saved).to.include({ version: 2, origin: 'edited', saved_by: 'admin@example.com', yaml: edited });
    expect(await recipe(await put(edited))).to.include({ version: 2 });
  });

  it('refuses a broken save with each error’s line and column, and keeps the saved version', async () => {
    const broken = shipped.replace('  - { id: fetch, kind: fetch }\n', '  - { id: fetch, kind: fetchh }\n');
    const detail = await issues(await put(broken));
    const line = broken.split('\n').findIndex((text) => text.includes('fetchh')) + 1;
    expect(detail.some((issue) => issue.loc[2] === line && typeof issue.loc[3] === 'number' && /kind/.test(issue.msg)), JSON.stringify(detail)).to.equal(true);
    const syntax = await issues(await put('format: 1\nname: [unclosed\n'));
    expect(syntax[0]?.loc.slice(0, 2)).to.deep.equal(['body', 'yaml']);
    expect(syntax[0]?.loc[2]).to.be.a('number');
    const current = await recipe(await call(`/api/v1/recipes/${KEY.replace('.', '/')}`));
    expect(current.version).to.equal(2);
  });

  it('refuses a text whose flavor or stem is not the key it is saved under', async () => {
    const detail = await issues(await put(shipped, 'admin@example.com', 'community.18.0-19.0'));
    expect(detail.map((issue) => issue.msg).join(' ')).to.match(/stored as community\.18\.0-19\.0 but says stem 17\.0-18\.0/);
    expect((await call('/api/v1/recipes/community/17.0-19', { method: 'GET' })).status).to.equal(422);
    expect((await call('/api/v1/recipes/community/15.0-16.0')).status).to.equal(404);
  });

  it('snapshots the current version into a new migration and says which migration uses which version', async () => {
    const res = await call('/api/v1/migrations', { method: 'POST', as: 'dev@example.com', json: { name: 'Uses v2', origin: '17.0', destination: '18.0', pull_url: 'https://files.example.com/a.dump' } });
    expect(res.status, await res.clone().text()).to.equal(201);
    const [row] = ((await (await call('/api/v1/recipes')).json()) as RecipeBody[]).filter((item) => item.key === KEY);
    expect(row?.used_by).to.deep.equal([{ slug: 'uses-v2', name: 'Uses v2', version: 2 }]);
  });

  it('never lets a start-up overwrite an edited recipe', async () => {
    const seeded = await recipeBook(platform.infra.store).seed(await loadRecipeFiles());
    expect(seeded).to.deep.equal([]);
    const current = await recipe(await call(`/api/v1/recipes/${KEY.replace('.', '/')}`));
    expect(current).to.include({ version: 2, origin: 'edited' });
  });

  it('refuses a migration whose recipe lint now fails, naming the recipe and its first finding', async () => {
    // A broken text can only come from outside the save (a shipped file seeded as it was): append one as a start-up would.
    const brokenKey = 'community.18.0-19.0';
    const text = 'format: 1\nname: "broken"\nflavor: community\nstem: "18.0-19.0"\nroute: { origin: "18.0", destination: "19.0" }\nsteps:\n  - { id: hold, kind: gate, message: wait }\n';
    await platform.infra.store.appendToStream(`recipe-${brokenKey}`, [
      {
        type: 'RecipeSaved',
        data: { key: brokenKey, flavor: 'community', stem: '18.0-19.0', text, sha256: recipeDigest(text), origin: 'shipped', errors: [], warnings: [] },
        metadata: { correlationId: 'test', causationId: 'test', actor: 'system', at: new Date().toISOString() },
      },
    ], { expectedVersion: 'any' });
    const res = await call('/api/v1/migrations', { method: 'POST', as: 'dev@example.com', json: { name: 'Blocked', origin: '17.0', destination: '19.0', pull_url: 'https://files.example.com/a.dump' } });
    const detail = JSON.stringify(await issues(res));
    expect(detail).to.match(/recipe community\.18\.0-19\.0 cannot be used until it is fixed: no fetch step.*\(line 6, column 1\)/);
  });
});
