import { expect } from 'chai';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { allInstances } from '#projections/instances/instanceList.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

const rowsOf = (html: string) => [...html.matchAll(/<td><a href="\/instances\/([a-z0-9-]+)">/g)].map((match) => match[1]);
/** The page's forms (in <main>: the navigation's sign-out form is on every page), by action. */
const formsOf = (html: string) => [...html.slice(html.indexOf('<main')).matchAll(/<form method="post" action="([^"]+)"[^>]*>\s*<input type="hidden" name="_csrf" value="[^"]+">\s*(?:<input type="hidden" name="action" value="(\w+)">)?/g)].map((match) => match[2] ?? match[1]);

describe('web: instances — list, detail, create form and actions', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let viewer: WebSession;
  let developer: WebSession;
  let admin: WebSession;
  let player: ReturnType<typeof jobPlayer>;

  async function create(form: Record<string, string>): Promise<string> {
    const res = await developer.post('/instances', { erp_version: '18.0', ...form });
    expect(res.status, `${form['name']}: ${textOf(res.html)}`).to.equal(303);
    return res.location!.replace('/instances/', '');
  }

  before(async () => {
    platform = await startWebPlatform();
    player = jobPlayer(platform);
    [viewer, developer, admin] = await Promise.all([platform.signedIn('viewer'), platform.signedIn('developer'), platform.signedIn('admin')]);
    expect((await developer.post('/projects', { name: 'Acme Norte' })).status).to.equal(303);
    expect((await developer.post('/projects/acme-norte/repo', { git_repo: 'git@github.com:acme/erp-norte.git' })).status).to.equal(303);
    // 21 "Batch" instances: two pages; staging on odd numbers, 17.0 on multiples of three.
    for (let n = 1; n <= 21; n++) {
      await create({ name: `Batch ${String(n).padStart(2, '0')}`, project: 'Batch Co', stage: n % 2 ? 'staging' : 'development', erp_version: n % 3 ? '18.0' : '17.0' });
    }
  });
  after(() => platform?.stop());

  describe('the list', () => {
    it('shows the newest 20 with their status, and the pagination', async () => {
      const res = await viewer.get('/instances');
      expect(res.status).to.equal(200);
      expect(rowsOf(res.html)).to.have.length(20);
      expect(rowsOf(res.html)[0]).to.equal('batch-co-batch-21');
      expect(res.html).to.include('<span class="badge status-queued">queued</span>');
      expect(textOf(res.html)).to.include('21 instances').and.include('Page 1 of 2');
      expect(res.html).to.include('href="?page=2" rel="next"');
      expect(rowsOf((await viewer.get('/instances?page=2')).html)).to.deep.equal(['batch-co-batch-01']);
    });

    it('filters by stage, version, text and status, keeping the filters in the form and the pagination', async () => {
      const staging = await viewer.get('/instances?stage=staging');
      expect(rowsOf(staging.html)).to.have.length(11);
      expect(staging.html).to.include('<option value="staging" selected>');
      expect(rowsOf((await viewer.get('/instances?stage=staging&version=17.0')).html)).to.deep.equal(['batch-co-batch-21', 'batch-co-batch-15', 'batch-co-batch-09', 'batch-co-batch-03']);
      expect(rowsOf((await viewer.get('/instances?q=batch+0')).html)).to.have.length(9);
      const queued = await viewer.get('/instances?status=queued&q=batch');
      expect(queued.html).to.include('href="?q=batch&amp;status=queued&amp;page=2"');
      expect(textOf(queued.html)).to.include('21 instances matching the filters');
      expect(textOf((await viewer.get('/instances?status=running&q=batch')).html)).to.include('No instance matches these filters.');
    });

    it('answers the filter form’s htmx request with the table alone, varying on HX-Request', async () => {
      const res = await viewer.get('/instances?stage=development&version=17.0', { 'hx-request': 'true' });
      expect(res.html.trimStart()).to.match(/^<section id="instance-table">/);
      expect(res.html).to.not.include('<html');
      expect(rowsOf(res.html)).to.deep.equal(['batch-co-batch-18', 'batch-co-batch-12', 'batch-co-batch-06']);
      expect(res.headers.get('vary')).to.match(/HX-Request/i);
    });

    it('offers "New instance" to developers, not to viewers', async () => {
      expect((await developer.get('/instances')).html).to.include('href="/instances/new"');
      const forViewer = (await viewer.get('/instances')).html;
      expect(forViewer).to.not.include('href="/instances/new"');
      expect(forViewer).to.not.include('href="/instances/upload"');
    });
  });

  describe('the create form', () => {
    it('preselects the project and says which repository it inherits', async () => {
      const res = await developer.get('/instances/new?project=acme-norte');
      expect(res.status).to.equal(200);
      expect(res.html).to.match(/name="project" value="acme-norte"/);
      expect(textOf(res.html)).to.include('the instance inherits git@github.com:acme/erp-norte.git unless you give a repository below');
      expect(res.html).to.include('<option value="acme-norte">Acme Norte</option>');
    });

    it('answers the project field’s htmx request with the repository line alone, for a slug, a name or a new project', async () => {
      const byName = await developer.get('/instances/new?project=acme%20NORTE', { 'hx-request': 'true' });
      expect(byName.html.trim()).to.match(/^<p id="project-repo"[\s\S]*<\/p>$/);
      expect(textOf(byName.html)).to.include('inherits git@github.com:acme/erp-norte.git');
      expect(textOf((await developer.get('/instances/new?project=batch-co', { 'hx-request': 'true' })).html)).to.include('Project Batch Co has no repository');
      expect(textOf((await developer.get('/instances/new?project=Nueva', { 'hx-request': 'true' })).html)).to.include('There is no project “Nueva” yet: creating the instance creates it.');
    });

    it('creates an instance: modules split on commas and spaces, 303 to its page, queued and polling', async () => {
      const res = await developer.post('/instances', { name: 'Norte Dev', project: 'acme-norte', stage: 'development', erp_version: '18.0', edition: 'community', modules: 'sale_management, stock  l10n_ar', git_repo: '', branch: 'develop' });
      expect(res.status).to.equal(303);
      expect(res.location).to.equal('/instances/acme-norte-norte-dev');
      const page = await developer.get(res.location!);
      const text = textOf(page.html);
      expect(text).to.include('Instance Norte Dev requested: it is queued for provisioning.');
      expect(page.html).to.include('<h1>Norte Dev</h1>');
      expect(text).to.include('sale_management stock l10n_ar').and.include('git@github.com:acme/erp-norte.git').and.include('develop');
      expect(page.html).to.include('<span class="badge status-queued">queued</span>');
      expect(page.html).to.match(/<section id="instance-status" hx-get="\/instances\/acme-norte-norte-dev" hx-trigger="every 2s" hx-swap="outerHTML">/);
      expect(text).to.include('resolve source').and.include('health check');
      expect((await getInstance(platform.infra.db.withSchema('read_model'), 'acme-norte-norte-dev'))?.modules).to.deep.equal(['sale_management', 'stock', 'l10n_ar']);
    });

    it('refuses invalid input with 422, keeping the input and putting each error next to its field', async () => {
      const res = await developer.post('/instances', { name: 'Bad Branch', project: 'acme-norte', stage: 'staging', erp_version: '17.0', edition: 'enterprise', modules: 'stock, Not-A-Module', git_repo: '', branch: '-oops' });
      expect(res.status).to.equal(422);
      expect(res.html).to.match(/name="name" value="Bad Branch"/);
      expect(res.html).to.match(/name="modules" value="stock, Not-A-Module"[^>]*aria-invalid="true" aria-describedby="modules-error"/);
      expect(res.html).to.match(/name="branch" value="-oops"[^>]*aria-invalid="true"/);
      expect(res.html).to.include('<small id="branch-error" class="field-error">not a git branch name: letters, digits, ., _, / and -, not starting with - nor ending with . or /</small>');
      expect(res.html).to.include('<small id="modules-error" class="field-error">“Not-A-Module” is not a technical module name: a lowercase letter, then lowercase letters, digits or _</small>');
      expect(res.html).to.include('<option value="17.0" selected>').and.include('<option value="enterprise" selected>').and.include('<option value="staging" selected>');
      expect(res.headers.get('hx-push-url')).to.equal('/instances/new?project=acme-norte');
    });

    it('asks for demo data with a box: shown on the page of a development instance, refused next to the box for staging (issue 25)', async () => {
      const refused = await developer.post('/instances', { name: 'Norte Demo', project: 'acme-norte', stage: 'staging', erp_version: '18.0', demo_data: 'on' });
      expect(refused.status).to.equal(422);
      expect(refused.html).to.match(/name="demo_data" value="on" checked[^>]*aria-invalid="true"/);
      expect(refused.html).to.include('<small id="demo_data-error" class="field-error">demo data is for development instances only, not staging</small>');
      const created = await developer.post('/instances', { name: 'Norte Demo', project: 'acme-norte', stage: 'development', erp_version: '18.0', demo_data: 'on' });
      expect(created.status).to.equal(303);
      expect(textOf((await developer.get(created.location!)).html)).to.include('Demo data installed: asked for at creation');
      const plain = await developer.post('/instances', { name: 'Norte Plain', project: 'acme-norte', stage: 'development', erp_version: '18.0' });
      expect(textOf((await developer.get(plain.location!)).html)).to.include('Demo data none');
    });

    it('refuses a second production instance in a project (409) with 422 and the reason', async () => {
      await create({ name: 'Norte Prod', project: 'acme-norte', stage: 'production' });
      const res = await developer.post('/instances', { name: 'Norte Prod Two', project: 'acme-norte', stage: 'production', erp_version: '18.0' });
      expect(res.status).to.equal(422);
      expect(textOf(res.html)).to.include('project acme-norte already has a production instance (acme-norte-norte-prod); destroy it first');
      expect(res.html).to.match(/name="name" value="Norte Prod Two"/);
    });

    it('offers a copy of an instance: "copy database and filestore from <slug>", settings taken from it', async () => {
      const res = await developer.get('/instances/new?clone_from=acme-norte-norte-dev');
      expect(textOf(res.html)).to.include('Copy database and filestore from acme-norte-norte-dev (neutralized unless production');
      expect(res.html).to.include('name="clone_from" value="acme-norte-norte-dev"');
      expect(res.html).to.match(/name="project" value="acme-norte"/);
      expect(res.html).to.match(/name="modules" value="sale_management stock l10n_ar"/);
      const unknown = await developer.get('/instances/new?clone_from=no-such-instance');
      expect(textOf(unknown.html)).to.include('there is no instance no-such-instance to copy from');
    });
  });

  describe('the detail page', () => {
    it('shows a running instance on the stand-in: its URL, the runtime, the finished steps, and no polling', async () => {
      const slug = await create({ name: 'Norte Staging', project: 'acme-norte', stage: 'staging' });
      await player.run(slug, standinFacts('http://127.0.0.1:18069'));
      const res = await viewer.get(`/instances/${slug}`);
      const text = textOf(res.html);
      expect(res.html).to.include('<span class="badge status-running">running</span>');
      expect(res.html).to.include('<a href="http://127.0.0.1:18069" hx-boost="false" target="_blank" rel="noopener">http://127.0.0.1:18069</a>');
      expect(text).to.include('This instance runs on Forja’s ERP stand-in (process runtime), not a real ERP');
      expect(text).to.include('3f2a9c1d4e5b');
      expect(res.html.match(/class="step step-completed"/g)).to.have.length(7);
      expect(text).to.include('1.2 s');
      expect(res.html).to.include('<section id="instance-status">');
      expect(res.html).to.not.include('hx-trigger="every 2s"');
    });

    it('says which neutralization the database got: the ERP\'s neutralize, or Forja\'s SQL and why', async () => {
      const slug = await create({ name: 'Norte QA', project: 'acme-norte', stage: 'staging', erp_version: '16.0' });
      const line = "Forja's SQL (fallback: the ERP has no neutralize command): scheduled actions (ir_cron) deactivated, except base.autovacuum_job";
      await player.run(slug, { ...standinFacts('http://127.0.0.1:18070'), database: { neutralization: line } });
      const text = textOf((await viewer.get(`/instances/${slug}`)).html);
      expect(text).to.include(`Neutralized by ${line}`);
    });

    it('offers developers the actions that fit the status, and viewers none', async () => {
      const slug = 'acme-norte-norte-staging';
      expect(formsOf((await developer.get(`/instances/${slug}`)).html)).to.deep.equal(['stop', 'restart', 'rebuild', 'destroy']);
      const forViewer = (await viewer.get(`/instances/${slug}`)).html;
      expect(formsOf(forViewer)).to.deep.equal([]);
      expect(forViewer).to.not.include('/action');
      expect((await developer.get('/instances/acme-norte-norte-dev')).html, 'a queued instance can only be destroyed').to.satisfy((html: string) => formsOf(html).join() === 'destroy');
      expect((await developer.get(`/instances/${slug}`)).html).to.match(/hx-confirm="Destroy Norte Staging\? Its database, filestore and files are deleted for good\."/);
    });

    it('shows a failed instance’s failing step with its error and log tail', async () => {
      const slug = await create({ name: 'Norte Broken', project: 'acme-norte' });
      await player.run(slug, {}, 'install_modules');
      await player.start(slug, 'install_modules');
      await player.fail(slug, 'install_modules', 'module stock_extra not found', ['Loading modules…', 'ERROR: module <stock_extra> not found']);
      const res = await developer.get(`/instances/${slug}`);
      const text = textOf(res.html);
      expect(res.html).to.include('<span class="badge status-failed">failed</span>');
      expect(text).to.include('Failed: install_modules: module stock_extra not found');
      expect(res.html).to.include('<tr class="step step-failed">');
      expect(res.html).to.include('<pre class="log-tail">Loading modules…\nERROR: module &lt;stock_extra&gt; not found</pre>');
      expect(res.html.match(/class="step step-pending"/g)).to.have.length(2);
      expect(res.html).to.not.include('hx-trigger="every 2s"');
      expect(formsOf(res.html)).to.deep.equal(['restart', 'rebuild', 'destroy']);
    });

    it('answers the status block’s own polling with the block alone, which stops polling once the job ended', async () => {
      const slug = await create({ name: 'Norte Polling', project: 'acme-norte' });
      const polling = await viewer.get(`/instances/${slug}`, { 'hx-request': 'true', 'hx-target': 'instance-status' });
      expect(polling.html.trimStart()).to.match(/^(\{#[^#]*#\}\s*)?<section id="instance-status" hx-get="\/instances\/[a-z0-9-]+" hx-trigger="every 2s"/);
      expect(polling.html).to.not.include('<html');
      await player.run(slug, { start: { url: 'http://127.0.0.1:18070' } }, 'build');
      await player.start(slug, 'build');
      const midway = await viewer.get(`/instances/${slug}`, { 'hx-request': 'true' });
      expect(midway.html).to.include('<span class="badge status-provisioning">provisioning</span>');
      expect(midway.html).to.include('<tr class="step step-running">');
      expect(midway.html).to.include('hx-trigger="every 2s"');
      await player.run(slug, { start: { url: 'http://127.0.0.1:18070' } });
      const ended = await viewer.get(`/instances/${slug}`, { 'hx-request': 'true' });
      expect(ended.html.trimStart()).to.match(/<section id="instance-status">/);
      expect(ended.html).to.not.include('hx-trigger');
      expect(ended.html).to.include('<span class="badge status-running">running</span>');
    });

    it('answers an unknown instance with 404, also for its actions', async () => {
      const res = await viewer.get('/instances/no-such-instance');
      expect(res.status).to.equal(404);
      expect(textOf(res.html)).to.include('There is no instance no-such-instance.');
      expect((await developer.post('/instances/no-such-instance/action', { action: 'stop' })).status).to.equal(404);
    });
  });

  describe('actions', () => {
    it('stops a running instance: 303 back to the page with a flash, the status block polling the new job', async () => {
      const res = await developer.post('/instances/acme-norte-norte-staging/action', { action: 'stop' });
      expect(res.status).to.equal(303);
      expect(res.location).to.equal('/instances/acme-norte-norte-staging');
      const page = await developer.get(res.location!);
      expect(textOf(page.html)).to.include('Stopping acme-norte-norte-staging: the job is queued.');
      expect(page.html).to.include('hx-trigger="every 2s"');
      expect(formsOf(page.html)).to.deep.equal(['destroy']);
    });

    it('flashes the control-plane’s reason when the action does not fit the state (409)', async () => {
      const res = await developer.post('/instances/acme-norte-norte-staging/action', { action: 'rebuild' });
      expect(res.status).to.equal(303);
      const poll = await developer.get(res.location!, { 'hx-request': 'true' });
      expect(poll.html, 'the status block’s poll leaves the message to the page').to.not.include('flash-error');
      const page = await developer.get(res.location!);
      expect(page.html).to.match(/<div class="flash flash-error" role="alert">Could not rebuild acme-norte-norte-staging: acme-norte-norte-staging is busy with a stop job/);
    });

    it('refuses a viewer’s action and creation with 403, and a developer’s purge', async () => {
      const action = await viewer.post('/instances/acme-norte-norte-staging/action', { action: 'destroy' });
      expect(action.status).to.equal(403);
      expect(textOf(action.html)).to.include('This needs the developer role; you are signed in as viewer.');
      expect((await viewer.post('/instances', { name: 'Viewer Was Here', project: 'acme-norte', erp_version: '18.0' })).status).to.equal(403);
      expect((await developer.post('/instances/purge', {})).status).to.equal(403);
      expect(await allInstances(platform.infra.db.withSchema('read_model'), { q: 'Viewer Was Here' })).to.deep.equal([]);
    });

    it('destroys, then an admin purges the destroyed instances from the list', async () => {
      await player.run('acme-norte-norte-staging');
      const destroy = await developer.post('/instances/acme-norte-norte-staging/action', { action: 'destroy' });
      expect(destroy.status).to.equal(303);
      await player.run('acme-norte-norte-staging');
      expect((await developer.get('/instances/acme-norte-norte-staging')).html).to.include('<span class="badge status-destroyed">destroyed</span>');
      expect((await developer.get('/instances')).html, 'only admins purge').to.not.include('action="/instances/purge"');
      const list = await admin.get('/instances');
      expect(list.html).to.include('action="/instances/purge"');
      expect(textOf(list.html)).to.include('1 destroyed instance is still listed.');
      const purge = await admin.post('/instances/purge', {});
      expect(purge.status).to.equal(303);
      expect(purge.location).to.equal('/instances');
      const after = await admin.get('/instances');
      expect(textOf(after.html)).to.include('Purged 1 destroyed instance.');
      expect(after.html).to.not.include('action="/instances/purge"');
      expect((await admin.get('/instances/acme-norte-norte-staging')).status).to.equal(404);
    });
  });

  describe('the project page', () => {
    it('lists the project’s instances, and offers developers a new one in the project', async () => {
      const forDeveloper = await developer.get('/projects/acme-norte');
      expect(forDeveloper.html).to.include('href="/instances/acme-norte-norte-dev">Norte Dev</a>');
      expect(forDeveloper.html).to.include('href="/instances/new?project=acme-norte"');
      expect(textOf(forDeveloper.html)).to.not.include('No instances yet.');
      const forViewer = await viewer.get('/projects/acme-norte');
      expect(forViewer.html).to.include('href="/instances/acme-norte-norte-dev"');
      expect(forViewer.html).to.not.include('href="/instances/new?project=acme-norte"');
    });
  });
});
