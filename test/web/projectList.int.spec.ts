import { expect } from 'chai';
import { userIdFor } from '#services/control-plane/identity/user.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

const rowsOf = (html: string) => [...html.matchAll(/<td><a href="\/projects\/([a-z0-9-]+)">/g)].map((match) => match[1]);

describe('web: the project list and creating projects', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let developer: WebSession;

  before(async () => {
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
    // 21 "Batch" projects and 2 "Solo" ones: two pages of the list, and a search that finds two.
    const names = [...Array.from({ length: 21 }, (_, i) => `Batch ${String(i + 1).padStart(2, '0')}`), 'Solo Uno', 'Solo Dos'];
    for (const name of names) expect((await developer.post('/projects', { name })).status, name).to.equal(303);
  });
  after(() => platform?.stop());

  it('lists the first 20 projects by name at / and /projects, with the pagination', async () => {
    for (const path of ['/', '/projects']) {
      const res = await developer.get(path);
      expect(res.status).to.equal(200);
      expect(rowsOf(res.html)).to.have.length(20);
      expect(rowsOf(res.html)[0]).to.equal('batch-01');
      expect(textOf(res.html)).to.include('23 projects').and.include('Page 1 of 2');
      expect(res.html).to.include('href="?page=2" rel="next"');
    }
  });

  it('shows page 2', async () => {
    const res = await developer.get('/projects?page=2');
    expect(rowsOf(res.html)).to.deep.equal(['batch-21', 'solo-dos', 'solo-uno']);
    expect(textOf(res.html)).to.include('Page 2 of 2');
    expect(res.html).to.include('href="?page=1" rel="prev"');
  });

  it('treats a page past the end or a junk page as the nearest real one', async () => {
    expect(rowsOf((await developer.get('/projects?page=99')).html)).to.have.length(3);
    expect(rowsOf((await developer.get('/projects?page=-1')).html)).to.have.length(20);
    expect(rowsOf((await developer.get('/projects?page=abc')).html)).to.have.length(20);
  });

  it('searches by name with q, case-insensitively, keeping q in the pagination links', async () => {
    const res = await developer.get('/projects?q=SOLO');
    expect(rowsOf(res.html)).to.deep.equal(['solo-dos', 'solo-uno']);
    expect(textOf(res.html)).to.include('2 projects matching “SOLO”');
    expect(res.html).to.include('value="SOLO"');
    const batch = await developer.get('/projects?q=batch');
    expect(batch.html).to.include('href="?q=batch&amp;page=2"');
    expect(textOf((await developer.get('/projects?q=nothing-like-this')).html)).to.include('No project matches “nothing-like-this”.');
  });

  it('searches without the control characters of q instead of failing with 500 (issue 10, item 9)', async () => {
    const res = await developer.get('/projects?q=SO%00LO%1b');
    expect(res.status).to.equal(200);
    expect(rowsOf(res.html)).to.deep.equal(['solo-dos', 'solo-uno']);
  });

  it('answers an htmx request with the table alone, and says the answer varies with HX-Request', async () => {
    const res = await developer.get('/projects?q=solo', { 'hx-request': 'true', 'hx-current-url': `${platform.web}/projects` });
    expect(res.status).to.equal(200);
    expect(res.html.trimStart()).to.match(/^<section id="project-table">/);
    expect(res.html).to.not.include('<html');
    expect(rowsOf(res.html)).to.deep.equal(['solo-dos', 'solo-uno']);
    expect(res.headers.get('vary')).to.match(/HX-Request/i);
  });

  it('answers boosted navigation, history restores and plain requests with the whole page', async () => {
    const variants: Array<Record<string, string>> = [{ 'hx-request': 'true', 'hx-boosted': 'true' }, { 'hx-request': 'true', 'hx-history-restore-request': 'true' }, {}];
    for (const headers of variants) {
      const res = await developer.get('/projects?q=solo', headers);
      expect(res.html, JSON.stringify(headers)).to.match(/^<!doctype html>/);
      expect(res.html).to.include('<section id="project-table">');
      expect(res.headers.get('vary')).to.match(/HX-Request/i);
    }
  });

  it('creates a project: 303 to its page, shown at once, recorded as done by the user', async () => {
    const res = await developer.post('/projects', { name: '  Cabaña   Los Álamos ' });
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/projects/cabana-los-alamos');
    const page = await developer.get(res.location!);
    expect(page.status).to.equal(200);
    expect(textOf(page.html)).to.include('Project Cabaña Los Álamos created.');
    expect(page.html).to.include('<h1>Cabaña Los Álamos</h1>');
    expect(rowsOf((await developer.get('/projects?q=álamos')).html)).to.deep.equal(['cabana-los-alamos']);
    expect((await platform.project('cabana-los-alamos'))?.created_by).to.equal(userIdFor(USERS.developer));
  });

  it('refuses a duplicate name with 422, re-rendering the form with the input and the error', async () => {
    const res = await developer.post('/projects', { name: 'solo  UNO' });
    expect(res.status).to.equal(422);
    expect(res.html).to.match(/<input type="text" name="name" value="solo {2}UNO"[^>]*aria-invalid="true"/);
    expect(textOf(res.html)).to.include('a project named Solo Uno already exists');
    expect(rowsOf(res.html)).to.have.length(20);
    expect(await platform.projectNames('solo uno')).to.deep.equal(['Solo Uno']);
  });

  it('refuses a name with no letter or digit with 422, and escapes what it echoes', async () => {
    const res = await developer.post('/projects', { name: '"><&' });
    expect(res.status).to.equal(422);
    expect(textOf(res.html)).to.include('the name needs at least one letter or digit');
    expect(res.html).to.include('name="name" value="&quot;&gt;&lt;&amp;"');
  });
});
