import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

describe('web: a project’s page, its repository and deleting it', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let viewer: WebSession;
  let developer: WebSession;
  let admin: WebSession;

  before(async () => {
    platform = await startWebPlatform();
    [viewer, developer, admin] = await Promise.all([platform.signedIn('viewer'), platform.signedIn('developer'), platform.signedIn('admin')]);
    for (const name of ['Acme Norte', 'Acme Sur', 'Doomed One']) expect((await developer.post('/projects', { name })).status).to.equal(303);
  });
  after(() => platform?.stop());

  it('shows name, slug, repository, instances and SSH keys to every role', async () => {
    for (const session of [viewer, developer, admin]) {
      const res = await session.get('/projects/acme-norte');
      expect(res.status).to.equal(200);
      const text = textOf(res.html);
      expect(res.html).to.include('<h1>Acme Norte</h1>');
      expect(text).to.include('acme-norte').and.include('Git repository').and.include('Instances').and.include('SSH keys').and.include('No instances yet.');
    }
  });

  it('shows the git push hook URL, HMAC-SHA256 of the slug and its nonce under the webhook secret, to developers and admins only', async () => {
    const nonce = (await platform.project('acme-norte'))!.webhook_nonce;
    expect(nonce).to.match(/^[A-Za-z0-9_-]{22}$/);
    const token = createHmac('sha256', resolvePlatformSecrets(platform.config).webhookSecret).update(`acme-norte:${nonce}`).digest('hex');
    const url = `${platform.controlPlane}/webhooks/git/acme-norte/${token}`;
    for (const session of [developer, admin]) expect((await session.get('/projects/acme-norte')).html).to.include(`<code class="hook">${url}</code>`);
    const forViewer = (await viewer.get('/projects/acme-norte')).html;
    expect(forViewer).to.not.include('/webhooks/git/');
    expect(textOf(forViewer)).to.include('Visible to developers and admins.');
  });

  it('offers the repository form to developers and the delete form to admins only', async () => {
    // In <main>: the navigation's sign-out form is on every page.
    const forms = async (session: WebSession) => {
      const html = (await session.get('/projects/acme-norte')).html;
      return [...html.slice(html.indexOf('<main')).matchAll(/<form method="post" action="([^"]+)"/g)].map((match) => match[1]);
    };
    expect(await forms(viewer)).to.deep.equal([]);
    expect(await forms(developer)).to.deep.equal(['/projects/acme-norte/repo', '/projects/acme-norte/webhook/rotate']);
    expect(await forms(admin)).to.deep.equal(['/projects/acme-norte/repo', '/projects/acme-norte/webhook/rotate', '/projects/acme-norte/delete']);
  });

  it('sets the repository: 303 back to the page, which shows it at once', async () => {
    const res = await developer.post('/projects/acme-norte/repo', { git_repo: '  git@github.com:acme/erp-norte.git ' });
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/projects/acme-norte');
    const page = await developer.get('/projects/acme-norte');
    expect(textOf(page.html)).to.include('Repository saved. New instances will use it.');
    expect(page.html).to.include('<code class="repo">git@github.com:acme/erp-norte.git</code>');
    expect((await platform.project('acme-norte'))?.git_repo).to.equal('git@github.com:acme/erp-norte.git');
  });

  it('refuses an invalid repository with 422, keeping the input (escaped) and saying why', async () => {
    for (const [input, why] of [
      ['https://git.example.com/x.git; rm -rf /', 'the URL contains spaces or shell metacharacters'],
      ['ftp://git.example.com/x.git', 'use an ssh (ssh://host/repo.git or git@host:repo.git), https (https://host/repo.git) or file (file:///path/repo.git) URL'],
      ['"><b>x</b>', 'the URL contains spaces or shell metacharacters'],
      ['ssh://deploy:s3cret@git.example.com/x.git', 'put credentials in an SSH key, not in the URL'],
    ] as const) {
      const res = await developer.post('/projects/acme-sur/repo', { git_repo: input });
      expect(res.status, input).to.equal(422);
      expect(textOf(res.html)).to.include(why);
      const kept = input.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      expect(res.html).to.match(new RegExp(`name="git_repo" value="${kept.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"[^>]*aria-invalid="true"`));
    }
    expect((await platform.project('acme-sur'))?.git_repo).to.equal(null);
  });

  it('gives a new hook URL from the page: shown at once, and the old one refused with 403 (issue 10, item 18)', async () => {
    const hookOf = async () => /<code class="hook">([^<]+)<\/code>/.exec((await developer.get('/projects/acme-sur')).html)?.[1];
    const ping = (url: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'ping' }, body: '{"zen":"hi","hook_id":1}' }).then((res) => res.status);
    const old = (await hookOf())!;
    expect(await ping(old)).to.equal(200);
    expect((await viewer.post('/projects/acme-sur/webhook/rotate', {})).status, 'a viewer').to.equal(403);
    const res = await developer.post('/projects/acme-sur/webhook/rotate', {});
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/projects/acme-sur');
    const page = await developer.get('/projects/acme-sur');
    expect(textOf(page.html)).to.include('New push hook URL: put it in the git host’s webhook settings; the old one is refused from now on.');
    const fresh = (await hookOf())!;
    expect(fresh).to.match(/\/webhooks\/git\/acme-sur\/[0-9a-f]{64}$/).and.not.equal(old);
    expect(await ping(old), 'the old URL').to.equal(403);
    expect(await ping(fresh), 'the new URL').to.equal(200);
    expect((await developer.post('/projects/acme-sur/webhook/rotate', {}, { csrf: false })).status, 'without the CSRF token').to.equal(403);
    const missing = await developer.post('/projects/no-such-project/webhook/rotate', {});
    expect(missing.status, 'an unknown project').to.equal(404);
    expect(textOf(missing.html)).to.include('There is no project no-such-project.');
  });

  it('explains with 422 that nothing was deleted when the typed name is wrong, and keeps the project', async () => {
    const res = await admin.post('/projects/doomed-one/delete', { confirm_name: 'doomed one' });
    expect(res.status).to.equal(422);
    expect(textOf(res.html)).to.include('nothing was deleted: type the project name exactly (Doomed One) to confirm');
    expect(res.html).to.match(/name="confirm_name" value="doomed one"[^>]*aria-invalid="true"/);
    expect(res.headers.get('hx-push-url'), 'htmx shows the page’s URL, not the form’s').to.equal('/projects/doomed-one');
    expect((await admin.get('/projects/doomed-one')).status).to.equal(200);
  });

  it('deletes with the right name: 303 to the list, which no longer shows it; its page is gone', async () => {
    const res = await admin.post('/projects/doomed-one/delete', { confirm_name: 'Doomed One' });
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/projects');
    const list = await admin.get('/projects');
    expect(textOf(list.html)).to.include('Project deleted.');
    expect(list.html).to.not.include('/projects/doomed-one');
    expect((await admin.get('/projects/doomed-one')).status).to.equal(404);
    expect(await platform.project('doomed-one')).to.equal(undefined);
  });

  it('shows no create form to a viewer, and refuses their POST with 403, creating nothing', async () => {
    const list = await viewer.get('/projects');
    expect(list.html).to.not.match(/<form method="post" action="\/projects"/);
    expect(textOf(list.html)).to.not.include('Create project');
    const res = await viewer.post('/projects', { name: 'Viewer Was Here' });
    expect(res.status).to.equal(403);
    expect(textOf(res.html)).to.include('This needs the developer role; you are signed in as viewer.');
    expect(await platform.projectNames('Viewer Was Here')).to.deep.equal([]);
  });

  it('refuses a viewer’s repository change and a developer’s delete with 403, changing nothing', async () => {
    expect((await viewer.post('/projects/acme-sur/repo', { git_repo: 'git@h:x.git' })).status).to.equal(403);
    const res = await developer.post('/projects/acme-sur/delete', { confirm_name: 'Acme Sur' });
    expect(res.status).to.equal(403);
    expect(textOf(res.html)).to.include('This needs the admin role; you are signed in as developer.');
    expect(await platform.project('acme-sur')).to.include({ name: 'Acme Sur', git_repo: null });
  });

  it('answers an unknown project with a 404 page, also for its forms', async () => {
    const res = await viewer.get('/projects/no-such-project');
    expect(res.status).to.equal(404);
    expect(textOf(res.html)).to.include('Not found').and.include('There is no project no-such-project.');
    expect((await developer.post('/projects/no-such-project/repo', { git_repo: 'git@h:x.git' })).status).to.equal(404);
    expect((await admin.post('/projects/no-such-project/delete', { confirm_name: 'x' })).status).to.equal(404);
    expect((await viewer.get('/no/such/page')).status).to.equal(404);
  });

  it('makes htmx show an error page in place of the whole page, whatever the request targeted', async () => {
    for (const res of [
      await viewer.get('/projects/no-such-project', { 'hx-request': 'true', 'hx-target': 'project-table' }),
      await viewer.post('/projects', { name: 'Nope' }, { headers: { 'hx-request': 'true', 'hx-boosted': 'true' } }),
    ]) {
      expect(res.status).to.be.oneOf([403, 404]);
      expect(res.headers.get('hx-retarget')).to.equal('body');
      expect(res.headers.get('hx-reswap')).to.equal('innerHTML');
    }
    expect((await viewer.get('/projects/acme-norte')).headers.get('hx-retarget')).to.equal(null);
  });

  it('answers /health with 200 to anyone', async () => {
    const res = await fetch(`${platform.web}/health`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'ok' });
  });

  it('serves the stylesheets and the vendored htmx the layout links to, to anyone', async () => {
    const layout = (await platform.visitor().get('/login')).html;
    const assets = [...layout.matchAll(/(?:href|src)="(\/static\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets).to.include.members(['/static/pico.min.css', '/static/app.css', '/static/vendor/htmx-2.0.11.min.js']);
    for (const asset of assets) expect((await fetch(`${platform.web}${asset}`)).status, asset).to.equal(200);
  });
});
