import { expect } from 'chai';
import { Readable } from 'node:stream';
import { getMigration } from '#projections/erpMigrations/migrationDetail.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { readinessKey } from '#services/migrations/domain/readinessKey.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

const PULL_URL = 'https://files.example.com/acme.dump';
const rowsOf = (html: string) => [...html.matchAll(/<td><a href="\/migrations\/([a-z0-9-]+)">/g)].map((match) => match[1]);
/** The forms of the page's <main> (the navigation's sign-out form is on every page), by action. */
const formsOf = (html: string) => [...html.slice(html.indexOf('<main')).matchAll(/<form method="post" action="([^"]+)"/g)].map((match) => match[1]);

describe('web: migrations — list, create form, detail, edit and actions', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let viewer: WebSession;
  let developer: WebSession;

  async function create(form: Record<string, string>): Promise<string> {
    const res = await developer.post('/migrations/new', { origin: '16.0', destination: '17.0', pull_url: PULL_URL, ...form });
    expect(res.status, `${form['name']}: ${textOf(res.html)}`).to.equal(303);
    return res.location!.replace('/migrations/', '');
  }
  const flashOf = async (session: WebSession, path: string) => textOf((await session.get(path)).html);
  const statusOf = async (slug: string) => (await getMigration(platform.infra.db.withSchema('read_model'), slug))?.status;

  before(async () => {
    platform = await startWebPlatform();
    [viewer, developer] = await Promise.all([platform.signedIn('viewer'), platform.signedIn('developer')]);
  });
  after(() => platform?.stop());

  describe('the list', () => {
    it('says there are none yet, offering the form to developers only', async () => {
      const empty = await developer.get('/migrations');
      expect(textOf(empty.html)).to.include('No migrations yet. Create the first one');
      expect(empty.html).to.include('<a href="/migrations/new">Create the first one</a>');
      const forViewer = await viewer.get('/migrations');
      expect(forViewer.status).to.equal(200);
      expect(forViewer.html).to.not.include('href="/migrations/new"');
      expect(forViewer.html).to.match(/<a href="\/migrations" aria-current="page">Migrations<\/a>/);
    });

    it('pages by 20, searches by name, filters by status, and answers htmx with the table alone', async () => {
      for (let n = 1; n <= 21; n++) await create({ name: `Batch ${String(n).padStart(2, '0')}` });
      await create({ name: 'Acme Norte', purpose: 'production' });
      const first = await viewer.get('/migrations');
      expect(rowsOf(first.html)).to.have.length(20);
      expect(rowsOf(first.html)[0]).to.equal('acme-norte');
      expect(first.html).to.include('<span class="badge status-queued">draft</span>');
      expect(textOf(first.html)).to.include('22 migrations').and.include('Page 1 of 2');
      expect(rowsOf((await viewer.get('/migrations?page=2')).html)).to.deep.equal(['batch-02', 'batch-01']);
      expect(rowsOf((await viewer.get('/migrations?search=NORTE')).html)).to.deep.equal(['acme-norte']);
      const drafts = await viewer.get('/migrations?status=draft&search=batch');
      expect(textOf(drafts.html)).to.include('21 migrations matching the filters');
      expect(drafts.html).to.include('href="?search=batch&amp;status=draft&amp;page=2"');
      expect(drafts.html).to.include('<option value="draft" selected>');
      expect(textOf((await viewer.get('/migrations?status=migrated')).html)).to.include('No migration matches these filters.');
      expect(rowsOf((await viewer.get('/migrations?status=nonsense&page=-3')).html), 'an unknown status or page is ignored').to.have.length(20);
      const partial = await viewer.get('/migrations?search=acme', { 'hx-request': 'true' });
      expect(partial.html.trimStart()).to.match(/^<section id="migration-table">/);
      expect(partial.headers.get('vary')).to.match(/HX-Request/i);
    });
  });

  describe('the create form', () => {
    it('shows the form to developers with the route’s choices, and an error passed in the query', async () => {
      const res = await developer.get('/migrations/new?error=Try%20again');
      expect(res.status).to.equal(200);
      expect(res.html).to.include('<label for="f-pull_url">Download address of the dump</label>');
      expect(res.html).to.include('<option value="16.0" selected>').and.include('<option value="upgrade-service">');
      expect(textOf(res.html)).to.include('Try again');
      expect((await viewer.get('/migrations/new')).status).to.equal(403);
    });

    it('creates a draft: notify_to split on commas and lines, contract masked, credentials never shown', async () => {
      const res = await developer.post('/migrations/new', {
        name: 'Sur Prod',
        origin: '16.0',
        destination: '18.0',
        flavor: 'enterprise',
        engine: '',
        purpose: 'production',
        contract: 'M1234-5678-WXYZ',
        notify_to: 'ops@example.com, ana@example.com\r\nluis@example.com',
        pull_url: 'https://ana:s3cret@files.example.com/sur.dump',
      });
      expect(res.status).to.equal(303);
      expect(res.location).to.equal('/migrations/sur-prod');
      const page = await developer.get('/migrations/sur-prod');
      const text = textOf(page.html);
      expect(text).to.include('Migration Sur Prod created as a draft: run it when you are ready.');
      expect(text).to.include('16.0 → 18.0, enterprise').and.include('upgrade-service').and.include('ops@example.com, ana@example.com, luis@example.com');
      expect(text).to.include('…WXYZ').and.not.include('M1234-5678');
      expect(text).to.include('downloaded from https://files.example.com/sur.dump').and.not.include('s3cret');
      expect(text).to.include('enterprise.16.0-17.0 then enterprise.17.0-18.0');
      expect(page.html).to.match(/<code class="repo">[0-9a-f]{64}<\/code>/);
    });

    it('takes the customer\'s code (a project and a branch per version), shows it, and says which line it cannot read', async () => {
      expect((await developer.post('/projects', { name: 'Code Co' })).status).to.equal(303);
      expect((await developer.post('/projects/code-co/repo', { git_repo: 'https://git.example.com/code-co.git' })).status).to.equal(303);
      const slug = await create({ name: 'With code', destination: '18.0', project: 'code-co', code: '17.0: 17.0\n18.0: release/18@' + 'a'.repeat(40) });
      const page = await developer.get(`/migrations/${slug}`);
      expect(textOf(page.html)).to.match(/Customer code project code-co ?; 17\.0: 17\.0 ?; 18\.0: release\/18 at aaaaaaaaaaaa Notify/);
      expect(page.html, 'the draft\'s edit form holds it').to.include(`17.0: 17.0\n18.0: release/18@${'a'.repeat(40)}</textarea>`);
      const unreadable = await developer.post('/migrations/new', { name: 'Unreadable', origin: '16.0', destination: '17.0', pull_url: PULL_URL, project: 'code-co', code: '17.0 the main branch' });
      expect(unreadable.status).to.equal(422);
      expect(textOf(unreadable.html)).to.include('“17.0 the main branch” is not “version: branch” (or “version: branch@commit”), e.g. 17.0: 17.0');
      const stray = await developer.post('/migrations/new', { name: 'Stray', origin: '16.0', destination: '17.0', pull_url: PULL_URL, project: 'code-co', code: '19.0: 19.0' });
      expect(stray.status).to.equal(422);
      expect(stray.html).to.include('<small id="code-error" class="field-error">code names 19.0, which is not a version this migration reaches (16.0 → 17.0 reaches 17.0)</small>');
      const edited = await developer.post(`/migrations/${slug}/edit`, { origin: '16.0', destination: '18.0', flavor: 'community', engine: 'openupgrade', purpose: 'test', notify_to: '', project: 'code-co', code: '17.0: 17.0' });
      expect(edited.status, textOf(edited.html)).to.equal(303);
      expect(textOf((await developer.get(`/migrations/${slug}`)).html)).to.match(/Customer code project code-co ?; 17\.0: 17\.0 Notify/);
    });

    it('refuses invalid input with 422, keeping the input and putting each error next to its field', async () => {
      const backwards = await developer.post('/migrations/new', { name: 'Back', origin: '17.0', destination: '16.0', pull_url: PULL_URL, notify_to: 'ops@example.com\nnot-an-address' });
      expect(backwards.status).to.equal(422);
      expect(backwards.html).to.match(/name="name" value="Back"/);
      expect(backwards.html).to.include('<option value="17.0" selected>');
      expect(backwards.html).to.include('ops@example.com\nnot-an-address</textarea>');
      expect(backwards.html).to.include('<small id="notify_to-error" class="field-error">“not-an-address” is not an e-mail address</small>');
      const local = await developer.post('/migrations/new', { name: 'Local', origin: '16.0', destination: '17.0', pull_url: 'http://127.0.0.1:8080/x.dump' });
      expect(local.status).to.equal(422);
      expect(local.html).to.match(/name="pull_url" value="http:\/\/127.0.0.1:8080\/x.dump"[^>]*aria-invalid="true" aria-describedby="pull_url-error"/);
      expect(local.html).to.match(/<small id="pull_url-error" class="field-error">[^<]*loopback/);
      const ftp = await developer.post('/migrations/new', { name: 'Ftp', origin: '16.0', destination: '17.0', pull_url: 'ftp://files.example.com/x' });
      expect(ftp.html).to.include('<small id="pull_url-error" class="field-error">an http or https address of the dump (https://…)</small>');
      const older = await developer.post('/migrations/new', { name: 'Older', origin: '17.0', destination: '16.0', pull_url: PULL_URL });
      expect(older.html).to.match(/<small id="destination-error" class="field-error">the destination \(16.0\) must be newer than the origin \(17.0\)<\/small>/);
      const enterprise = await developer.post('/migrations/new', { name: 'Ent', origin: '16.0', destination: '17.0', flavor: 'enterprise', engine: 'openupgrade', pull_url: PULL_URL });
      expect(enterprise.html).to.include('<small id="engine-error" class="field-error">enterprise databases migrate only through the upgrade-service engine</small>');
      const noContract = await developer.post('/migrations/new', { name: 'No contract', origin: '16.0', destination: '17.0', engine: 'upgrade-service', pull_url: PULL_URL });
      expect(noContract.html).to.include('<small id="contract-error" class="field-error">the upgrade-service engine needs the subscription contract</small>');
      const empty = await developer.post('/migrations/new', { name: '  ', origin: '16.0', destination: '17.0', pull_url: '' });
      expect(empty.status).to.equal(422);
      expect(empty.html).to.include('id="name-error"').and.include('id="pull_url-error"');
      expect((await viewer.post('/migrations/new', { name: 'Viewer', origin: '16.0', destination: '17.0', pull_url: PULL_URL })).status).to.equal(403);
    });
  });

  describe('the detail page', () => {
    it('shows a draft with its settings, and to developers the run button, the edit form and the delete form', async () => {
      const page = await developer.get('/migrations/acme-norte');
      expect(page.status).to.equal(200);
      expect(page.html).to.include('<h1>Acme Norte</h1>');
      expect(page.html).to.include('<span class="badge status-queued" id="migration-badge">draft</span>');
      expect(page.html).to.include('<p id="run-progress" class="progress" aria-live="polite">A draft: no run yet.</p>');
      expect(page.html, 'a draft does not poll').to.not.include('hx-trigger="every 2s"');
      expect(formsOf(page.html)).to.deep.equal(['/migrations/acme-norte/run', '/migrations/acme-norte/edit', '/migrations/acme-norte/delete']);
      expect(page.html).to.include('<option value="production" selected>');
      const forViewer = await viewer.get('/migrations/acme-norte');
      expect(formsOf(forViewer.html)).to.deep.equal([]);
      expect(textOf(forViewer.html)).to.include('community.16.0-17.0');
    });

    it('is a 404 for an unknown migration, run or artifact', async () => {
      for (const path of ['/migrations/nope', '/migrations/acme-norte/runs/1', '/migrations/acme-norte/runs/abc', '/migrations/acme-norte/artifacts/1000/download', '/migrations/acme-norte/artifacts/x/download', '/migrations/a%00b']) {
        const res = await viewer.get(path);
        expect(res.status, path).to.equal(404);
      }
      expect(textOf((await viewer.get('/migrations/nope')).html)).to.include('There is no migration nope. It may have been deleted.');
    });
  });

  describe('editing', () => {
    it('changes a draft’s route and purpose, keeping the stored contract when the field is left empty', async () => {
      const res = await developer.post('/migrations/sur-prod/edit', { origin: '17.0', destination: '18.0', flavor: 'enterprise', engine: 'upgrade-service', purpose: 'test', contract: '', notify_to: 'ops@example.com' });
      expect(res.status).to.equal(303);
      const text = await flashOf(developer, '/migrations/sur-prod');
      expect(text).to.include('Settings saved.').and.include('17.0 → 18.0, enterprise').and.include('…WXYZ').and.include('enterprise.17.0-18.0');
      expect(text).to.not.include('ana@example.com');
    });

    it('refuses an invalid edit with 422, the page again with the form open, its input and the error at its field', async () => {
      const res = await developer.post('/migrations/sur-prod/edit', { origin: '18.0', destination: '17.0', flavor: 'enterprise', engine: 'upgrade-service', purpose: 'test', notify_to: 'x@' });
      expect(res.status).to.equal(422);
      expect(res.headers.get('hx-push-url')).to.equal('/migrations/sur-prod');
      expect(res.html).to.include('<details class="edit-settings" open>');
      expect(res.html).to.include('<small id="notify_to-error" class="field-error">“x@” is not an e-mail address</small>');
      const backwards = await developer.post('/migrations/sur-prod/edit', { origin: '18.0', destination: '17.0', flavor: 'enterprise', engine: 'upgrade-service', purpose: 'test', notify_to: '' });
      expect(backwards.html).to.include('<small id="destination-error" class="field-error">the destination (17.0) must be newer than the origin (18.0)</small>');
      expect(backwards.html).to.include('<option value="18.0" selected>');
      expect((await developer.post('/migrations/nope/edit', { purpose: 'test' })).status).to.equal(404);
      expect((await viewer.post('/migrations/sur-prod/edit', { purpose: 'test' })).status).to.equal(403);
    });

    it('removes the stored contract when asked', async () => {
      await developer.post('/migrations/batch-21/edit', { contract: 'M99-ABCD', notify_to: '' });
      expect(await flashOf(developer, '/migrations/batch-21')).to.include('…ABCD');
      await developer.post('/migrations/batch-21/edit', { contract: '', clear_contract: 'yes', notify_to: '' });
      expect((await getMigration(platform.infra.db.withSchema('read_model'), 'batch-21'))?.contract_hint).to.equal(null);
    });
  });

  describe('actions', () => {
    const slug = 'acme-norte';

    it('runs: 303 back with the news, the migration queued and its steps listed, the status block polling', async () => {
      const res = await developer.post(`/migrations/${slug}/run`, {});
      expect(res.status).to.equal(303);
      expect(res.location).to.equal(`/migrations/${slug}`);
      const page = await developer.get(`/migrations/${slug}`);
      expect(textOf(page.html)).to.include('Run 1 is queued: it starts when an executor takes it.');
      expect(page.html).to.include('<span class="badge status-queued" id="migration-badge">queued</span>');
      expect(page.html).to.match(/<div id="run-steps" hx-get="\/migrations\/acme-norte\?shown=queued&amp;said=[\w-]{10}" hx-trigger="every 2s" hx-swap="outerHTML">/);
      expect(page.html).to.include('<caption>Steps of run 1</caption>');
      expect(formsOf(page.html)).to.deep.equal([`/migrations/${slug}/pause`, `/migrations/${slug}/stop`, `/migrations/${slug}/edit`, `/migrations/${slug}/delete`]);
      expect(textOf(page.html)).to.include('The route, engine, purpose and customer code are fixed once it has run');
      expect(await statusOf(slug)).to.equal('queued');
    });

    it('shows the readiness report the coverage pre-flight wrote: what blocks and why, every module under a fold', async () => {
      const hop = {
        origin: '16.0',
        destination: '17.0',
        counts: { ok: 1, warning: 0, blocks: 1 },
        modules: [
          { module: 'acme_custom', found: 'missing', where: null, openupgrade: null, verdict: 'blocks', note: 'not on the destination\'s addons path: name the branch holding its code for this version, or uninstall it first' },
          { module: 'sale', found: 'standard', where: '/opt/odoo/17.0/addons/sale', openupgrade: 'done', verdict: 'ok', note: 'OpenUpgrade: done' },
        ],
      };
      await createFsBlobStore(platform.config.FORJA_DATA_DIR).put(readinessKey(slug, 1, '17.0'), Readable.from([JSON.stringify(hop)]));
      const text = textOf((await viewer.get(`/migrations/${slug}`)).html);
      expect(text).to.include("Readiness Made by run 1's coverage pre-flight");
      expect(text).to.include('16.0 → 17.0: 1 ready, 0 with a warning, 1 blocking');
      expect(text).to.match(/acme_custom missing — blocks not on the destination's addons path: name the branch holding its code for this version/);
      expect(text).to.include('All 2 installed modules');
    });

    it('shows a refusal for the state (409) as a message on the page it goes back to', async () => {
      const again = await developer.post(`/migrations/${slug}/run`, {});
      expect(again.status).to.equal(303);
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('acme-norte is queued; pause or stop its run first');
      await developer.post(`/migrations/${slug}/run-anyway`, { reason: 'trust me' });
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('run-anyway only overrides a run that failed in pre-flight');
      await developer.post(`/migrations/${slug}/resume`, {});
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('cannot resume acme-norte while it is queued');
      await developer.post(`/migrations/${slug}/runs/1/resume`, { decision: 'approve', note: 'ok' });
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('run 1 of acme-norte is not waiting at a gate');
    });

    it('refuses an unticked stop (422) on the page again; what a form the page does not show sent, as a message', async () => {
      const reason = await developer.post(`/migrations/${slug}/run-anyway`, { reason: '   ' });
      expect(reason.status).to.equal(303);
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('reason: say why the failed pre-flight may be overridden');
      const decision = await developer.post(`/migrations/${slug}/runs/1/resume`, { decision: 'maybe' });
      expect(decision.status).to.equal(303);
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('decision: choose approve or reject');
      const stop = await developer.post(`/migrations/${slug}/stop`, {});
      expect(stop.status).to.equal(422);
      expect(stop.html).to.include('<small id="confirm-error" class="field-error">Tick the box to confirm: stopping drops every run of this migration.</small>');
      expect(await statusOf(slug)).to.equal('queued');
    });

    it('ignores the route and purpose once it has run, saying so', async () => {
      const res = await developer.post(`/migrations/${slug}/edit`, { purpose: 'test', contract: 'M77-QRST', notify_to: 'ops@example.com' });
      expect(res.status).to.equal(303);
      const text = await flashOf(developer, `/migrations/${slug}`);
      expect(text).to.include('Settings saved.').and.include('purpose was ignored (it is queued)').and.include('…QRST');
      expect((await getMigration(platform.infra.db.withSchema('read_model'), slug))?.purpose).to.equal('production');
    });

    it('pauses and resumes', async () => {
      expect((await developer.post(`/migrations/${slug}/pause`, {})).status).to.equal(303);
      const paused = await developer.get(`/migrations/${slug}`);
      expect(textOf(paused.html)).to.include('Paused: the running step is stopped');
      expect(paused.html, 'a paused run does not poll').to.not.include('hx-trigger="every 2s"');
      expect(formsOf(paused.html)).to.include(`/migrations/${slug}/resume`);
      await developer.post(`/migrations/${slug}/pause`, {});
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('cannot pause acme-norte while it is paused');
      await developer.post(`/migrations/${slug}/resume`, {});
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('Resumed: the run is queued again.');
      expect(await statusOf(slug)).to.equal('queued');
    });

    it('stops with the box ticked: back to draft, the runs dropped', async () => {
      expect((await developer.post(`/migrations/${slug}/stop`, { confirm: 'stop' })).status).to.equal(303);
      const page = await developer.get(`/migrations/${slug}`);
      expect(textOf(page.html)).to.include('Stopped: back to draft; its runs are dropped.').and.include('No runs.');
      expect(await statusOf(slug)).to.equal('draft');
      await developer.post(`/migrations/${slug}/stop`, { confirm: 'stop' });
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('acme-norte is a draft already');
      const unticked = await developer.post(`/migrations/${slug}/stop`, {});
      expect(unticked.status, 'no stop form on a draft’s page: a message instead').to.equal(303);
      expect(await flashOf(developer, `/migrations/${slug}`)).to.include('Tick the box to confirm');
      expect((await developer.post('/migrations/nope/stop', {})).status).to.equal(404);
    });

    it('deletes only when the name is typed', async () => {
      const wrong = await developer.post(`/migrations/${slug}/delete`, { confirm_name: 'acme' });
      expect(wrong.status).to.equal(422);
      expect(wrong.html).to.include(`<small id="delete-error" class="field-error">type the migration&#39;s name (Acme Norte) to delete it</small>`);
      expect(wrong.html).to.match(/name="confirm_name" value="acme"/);
      const right = await developer.post(`/migrations/${slug}/delete`, { confirm_name: 'Acme Norte' });
      expect(right.status).to.equal(303);
      expect(right.location).to.equal('/migrations');
      expect(await flashOf(developer, '/migrations')).to.include('Migration acme-norte deleted with its runs and artifacts.');
      expect((await developer.get(`/migrations/${slug}`)).status).to.equal(404);
      expect((await developer.post(`/migrations/${slug}/run`, {})).status).to.equal(404);
      expect((await developer.post(`/migrations/${slug}/delete`, { confirm_name: 'Acme Norte' })).status).to.equal(404);
    });

    it('forbids every command to a viewer', async () => {
      for (const action of ['run', 'run-anyway', 'pause', 'resume', 'stop', 'delete', 'runs/1/resume']) {
        const res = await viewer.post(`/migrations/batch-01/${action}`, { reason: 'x', decision: 'approve', confirm: 'stop', confirm_name: 'Batch 01' });
        expect(res.status, action).to.equal(403);
        expect(textOf(res.html)).to.include('This needs the developer role; you are signed in as viewer.');
      }
      expect(await statusOf('batch-01')).to.equal('draft');
    });
  });
});
