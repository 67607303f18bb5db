import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getRecipe } from '#projections/recipes/recipes.ts';
import { RECIPE_FILES_DIR } from '#services/migrations/recipes/recipeFiles.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

const KEY = 'community.17.0-18.0';
/** The textarea's content as the browser would submit it (entities decoded). */
const textareaOf = (html: string) =>
  (/<textarea id="f-yaml"[^>]*>([\s\S]*?)<\/textarea>/.exec(html)?.[1] ?? '').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replace(/&#(\d+);/g, (_entity, code: string) => String.fromCharCode(Number(code))).replaceAll('&amp;', '&');

describe('web: recipes — list, editor, validate and save', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let developer: WebSession;
  let admin: WebSession;
  let shipped: string;

  before(async () => {
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
    admin = await platform.signedIn('admin');
    shipped = await readFile(join(RECIPE_FILES_DIR, 'community', '17.0-18.0.yaml'), 'utf8');
  });
  after(() => platform?.stop());

  const version = async () => (await getRecipe(platform.infra.db.withSchema('read_model'), KEY))?.version;

  it('lists every shipped recipe with its lint result, editable by admins and readable by developers', async () => {
    const forAdmin = await admin.get('/admin/recipes');
    expect(forAdmin.status).to.equal(200);
    const text = textOf(forAdmin.html);
    for (const key of ['community.16.0-17.0', 'community.18.0-19.0', 'enterprise.17.0-18.0']) expect(text).to.include(key);
    expect(forAdmin.html).to.include('href="/admin/recipes/community/17.0-18.0/edit">Edit');
    expect(forAdmin.html).to.include('href="/admin/recipes/new"');
    const forDeveloper = await developer.get('/admin/recipes');
    expect(forDeveloper.html).to.include('href="/admin/recipes/community/17.0-18.0/edit">View').and.not.include('href="/admin/recipes/new"');
    const editor = await developer.get('/admin/recipes/community/17.0-18.0/edit');
    expect(editor.html).to.include('readonly').and.not.include('value="save"');
    expect(textareaOf(editor.html)).to.equal(shipped);
    expect((await developer.post('/admin/recipes/save', { key: KEY, yaml: shipped, action: 'save' })).status).to.equal(403);
  });

  it('validates without saving: findings with line and column, the exact text kept', async () => {
    const broken = shipped.replace('kind: restore', 'kind: restor');
    const res = await admin.post('/admin/recipes/save', { key: KEY, yaml: broken, action: 'validate' });
    expect(res.status).to.equal(422);
    expect(textareaOf(res.html)).to.equal(broken);
    const line = broken.split('\n').findIndex((text) => text.includes('kind: restor }')) + 1;
    expect(res.html).to.match(new RegExp(`data-line="${line}" data-column="\\d+">line ${line}, column \\d+</a>`));
    expect(textOf(res.html)).to.match(/error.*not saved/);
    const clean = await admin.post('/admin/recipes/save', { key: KEY, yaml: shipped, action: 'validate' });
    expect(clean.status).to.equal(200);
    expect(textOf(clean.html)).to.include('No errors: this recipe can be saved.');
    expect(await version()).to.equal(1);
  });

  it('refuses a broken save with 422 and the user’s exact text, and saves a good one as the next version', async () => {
    const broken = 'format: 1\nname: "half typed\nsteps: [\n';
    const refused = await admin.post('/admin/recipes/save', { key: KEY, yaml: broken, action: 'save' });
    expect(refused.status).to.equal(422);
    expect(textareaOf(refused.html)).to.equal(broken);
    expect(refused.html).to.match(/class="goto-line" data-line="\d+"/);
    expect(await version()).to.equal(1);

    const edited = shipped.replace('timeout: 2h', 'timeout: 3h');
    const saved = await admin.post('/admin/recipes/save', { key: KEY, yaml: edited.replace(/\n/g, '\r\n'), action: 'save' });
    expect(saved.status, textOf(saved.html)).to.equal(303);
    expect(saved.location).to.equal('/admin/recipes');
    expect(textOf((await admin.get('/admin/recipes')).html)).to.include(`Recipe ${KEY} saved as version 2`);
    expect((await getRecipe(platform.infra.db.withSchema('read_model'), KEY))?.text, 'the browser’s CRLF is stored as LF').to.equal(edited);
    await admin.post('/admin/recipes/save', { key: KEY, yaml: edited, action: 'save' });
    expect(textOf((await admin.get('/admin/recipes')).html)).to.include(`Recipe ${KEY} is unchanged (still version 2)`);
  });

  it('creates a recipe from the template form, refusing a key that exists or makes no sense', async () => {
    const form = await admin.get('/admin/recipes/new');
    expect(form.status).to.equal(200);
    const template = textareaOf(form.html);
    expect(template).to.include('stem: "18.0-19.0"');
    const taken = await admin.post('/admin/recipes/save', { flavor: 'community', stem: '18.0-19.0', yaml: template, action: 'save' });
    expect(taken.status).to.equal(409);
    expect(textOf(taken.html)).to.include('a recipe community.18.0-19.0 exists already: edit it instead');
    expect(textareaOf(taken.html)).to.equal(template);
    const nonsense = await admin.post('/admin/recipes/save', { flavor: 'community', stem: '18-19', yaml: template, action: 'save' });
    expect(nonsense.status).to.equal(422);
    expect(textOf(nonsense.html)).to.include('the stem is <origin>-<destination>');
    const mismatch = await admin.post('/admin/recipes/save', { flavor: 'enterprise', stem: '18.0-19.0', yaml: template, action: 'validate' });
    expect(mismatch.status).to.equal(422);
    expect(textOf(mismatch.html)).to.include('this recipe is stored as enterprise.18.0-19.0 but says flavor community');
    const empty = await admin.post('/admin/recipes/save', { key: KEY, yaml: '  \n', action: 'save' });
    expect(empty.status).to.equal(422);
    expect(textOf(empty.html)).to.include('the recipe is empty');
  });

  it('answers 404 for a recipe that does not exist', async () => {
    expect((await developer.get('/admin/recipes/community/15.0-16.0/edit')).status).to.equal(404);
    expect((await developer.get('/admin/recipes/other/x/edit')).status).to.equal(404);
  });
});
