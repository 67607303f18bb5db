import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { instanceLogFile } from '#shared/platform/dataPaths.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

describe('web in Chromium: instances', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let web: string;
  let player: ReturnType<typeof jobPlayer>;
  let erpLog: string;

  before(async () => {
    platform = await startWebPlatform();
    web = platform.web;
    player = jobPlayer(platform);
    const developer = await platform.signedIn('developer');
    await developer.post('/projects', { name: 'Acme Norte' });
    await developer.post('/projects/acme-norte/repo', { git_repo: 'git@github.com:acme/erp-norte.git' });
    const instances: Array<Record<string, string>> = [
      { name: 'Norte Staging', project: 'acme-norte', stage: 'staging', erp_version: '18.0', modules: 'sale_management stock l10n_ar' },
      { name: 'Norte Dev', project: 'acme-norte', stage: 'development', erp_version: '18.0' },
      { name: 'Sur Prod', project: 'Acme Sur', stage: 'production', erp_version: '17.0', edition: 'enterprise' },
      { name: 'Sur Broken', project: 'Acme Sur', stage: 'development', erp_version: '17.0' },
    ];
    for (const form of instances) expect((await developer.post('/instances', form)).status, form['name']).to.equal(303);
    await player.run('acme-norte-norte-staging', standinFacts('http://127.0.0.1:18069'));
    await player.run('acme-sur-sur-prod', standinFacts('http://127.0.0.1:18070'));
    await player.run('acme-sur-sur-broken', {}, 'install_modules');
    await player.start('acme-sur-sur-broken', 'install_modules');
    await player.fail('acme-sur-sur-broken', 'install_modules', 'module stock_extra not found', ['2026-11-22 10:02:11 INFO loading 41 modules', '2026-11-22 10:02:12 ERROR module stock_extra: not found in addons path']);
    erpLog = instanceLogFile(platform.config.FORJA_DATA_DIR, 'acme-norte-norte-staging', 'erp');
    mkdirSync(dirname(erpLog), { recursive: true });
    writeFileSync(erpLog, Array.from({ length: 30 }, (_, i) => `2026-11-22 10:00:${String(i).padStart(2, '0')} INFO erp: stored line ${i + 1}\n`).join(''));
    browser = await launchChromium();
    context = await newContext(browser);
    page = await context.newPage();
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      await platform?.stop();
    }
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const open of context.pages()) await screenshot(open, `failed-instances-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
  });

  it('signs in and opens the instance list from the navigation', async () => {
    await page.goto(`${web}/login`);
    await signInWithForm(page, web, USERS.developer, PASSWORD);
    await page.getByRole('banner').getByRole('link', { name: 'Instances' }).click();
    await page.getByRole('heading', { name: 'Instances', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${web}/instances`);
    expect(await page.locator('#instance-table tbody tr').count()).to.equal(4);
    await screenshot(page, 'instances-list');
  });

  it('filters in place: the table changes and the address follows, without reloading the page', async () => {
    await page.evaluate('window.forjaStillHere = true');
    await page.getByLabel('Stage').selectOption('development');
    await page.getByRole('link', { name: 'Sur Prod' }).waitFor({ state: 'detached' });
    expect(await page.locator('#instance-table tbody tr').count()).to.equal(2);
    expect(page.url()).to.include('stage=development');
    await page.getByLabel('Search instances').pressSequentially('broken');
    await page.getByRole('link', { name: 'Norte Dev' }).waitFor({ state: 'detached' });
    expect(await page.locator('#instance-table tbody tr').count()).to.equal(1);
    expect(page.url()).to.include('q=broken');
    expect(await page.evaluate('window.forjaStillHere === true'), 'the page was reloaded').to.equal(true);
    await screenshot(page, 'instances-filtered');
  });

  it('opens a failed instance and sees the failing step, its error and log tail', async () => {
    await page.getByRole('link', { name: 'Sur Broken' }).click();
    await page.getByRole('heading', { name: 'Sur Broken', level: 1 }).waitFor();
    await page.getByText('Failed: install_modules: module stock_extra not found').waitFor();
    expect(await page.locator('pre.log-tail').innerText()).to.include('ERROR module stock_extra: not found in addons path');
    expect(await page.locator('.instance-actions button').allInnerTexts()).to.deep.equal(['Restart', 'Rebuild', 'Destroy']);
    await screenshot(page, 'instances-failed');
  });

  it('opens a running instance on the stand-in: its URL, the notice, the steps', async () => {
    await page.goto(`${web}/instances?stage=staging`);
    await page.getByRole('link', { name: 'Norte Staging' }).click();
    await page.getByRole('heading', { name: 'Norte Staging', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'http://127.0.0.1:18069' }).getAttribute('href')).to.equal('http://127.0.0.1:18069');
    await page.getByText('This instance runs on Forja’s ERP stand-in (process runtime)').waitFor();
    expect(await page.locator('tr.step-completed').count()).to.equal(7);
    await screenshot(page, 'instances-detail');
  });

  it('follows the log live: the stored lines, then each new one as it is written', async () => {
    await page.getByRole('link', { name: 'ERP log' }).first().click();
    await page.getByRole('heading', { name: 'Logs of Norte Staging' }).waitFor();
    await page.locator('#log').getByText('stored line 30').waitFor();
    await page.locator('#log-state').getByText('live').waitFor();
    for (let i = 1; i <= 5; i++) appendFileSync(erpLog, `2026-11-22 10:01:0${i} INFO werkzeug: GET /web/login 200 — new line ${i}\n`);
    await page.locator('#log').getByText('new line 5').waitFor();
    const text = await page.locator('#log').innerText();
    expect(text.indexOf('stored line 30')).to.be.below(text.indexOf('new line 1'));
    const scrolled = Number(await page.evaluate("(() => { const v = document.getElementById('log'); return v.scrollHeight - v.scrollTop - v.clientHeight; })()"));
    expect(scrolled, 'the view follows the end').to.be.below(40);
    await screenshot(page, 'instances-logs');
  });

  it('switches to the database log, and the ERP stream is closed when leaving', async () => {
    const erpStreamEnded = page.waitForEvent('requestfailed', (request) => request.url().endsWith('/logs/stream?source=erp'));
    await page.getByRole('link', { name: 'Database', exact: true }).click();
    await page.locator('#log-state').getByText('no log yet: waiting for the first line').waitFor();
    await erpStreamEnded;
    expect(page.url()).to.equal(`${web}/instances/acme-norte-norte-staging/logs?source=db`);
  });

  it('stops the instance: the status block follows the job every 2 s, then stops polling', async () => {
    await page.goto(`${web}/instances/acme-norte-norte-staging`);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopping acme-norte-norte-staging: the job is queued.').waitFor();
    expect(await page.locator('#instance-status').getAttribute('hx-trigger')).to.equal('every 2s');
    await page.locator('#instance-status .badge.status-busy').getByText('stopping · step 1 of 1').waitFor();
    await screenshot(page, 'instances-job-active');
    await player.run('acme-norte-norte-staging');
    await page.locator('#instance-status .badge.status-stopped').waitFor({ timeout: 6000 });
    expect(await page.locator('#instance-status').getAttribute('hx-trigger'), 'polling stopped').to.equal(null);
    expect(await page.locator('.instance-actions button').allInnerTexts()).to.deep.equal(['Start', 'Rebuild', 'Destroy']);
  });

  it('asks before destroying, and destroys only when confirmed', async () => {
    const posts: string[] = [];
    page.on('request', (request) => void (request.method() === 'POST' && posts.push(request.url())));
    let asked = '';
    page.once('dialog', (declined) => {
      asked = declined.message();
      void declined.dismiss();
    });
    // The click returns once the dialog is answered.
    await page.getByRole('button', { name: 'Destroy' }).click();
    expect(asked).to.equal('Destroy Norte Staging? Its database, filestore and files are deleted for good.');
    await page.goto(`${web}/instances/acme-norte-norte-staging`);
    expect(await page.locator('#instance-status .badge').innerText()).to.equal('stopped');
    expect(posts, 'nothing was sent').to.deep.equal([]);
    page.once('dialog', (confirmed) => void confirmed.accept());
    await page.getByRole('button', { name: 'Destroy' }).click();
    await page.getByText('Destroying acme-norte-norte-staging: the job is queued.').waitFor();
    expect(posts).to.deep.equal([`${web}/instances/acme-norte-norte-staging/action`]);
  });

  it('creates an instance with the form, seeing the repository it inherits as the project is chosen', async () => {
    await page.goto(`${web}/projects/acme-norte`);
    await page.getByRole('link', { name: 'Norte Dev' }).waitFor();
    await screenshot(page, 'instances-project');
    await page.getByRole('link', { name: 'New instance in this project' }).click();
    await page.getByRole('heading', { name: 'New instance', level: 1 }).waitFor();
    await page.locator('#project-repo').getByText('git@github.com:acme/erp-norte.git').waitFor();
    await page.getByLabel('Project').fill('Acme Sur');
    await page.locator('#project-repo').getByText('has no repository').waitFor();
    await page.getByLabel('Project').fill('acme-norte');
    await page.locator('#project-repo').getByText('git@github.com:acme/erp-norte.git').waitFor();
    await page.getByLabel('Name').fill('Norte QA');
    await page.getByLabel('Modules').fill('stock, -bad');
    await screenshot(page, 'instances-new');
    await page.getByRole('button', { name: 'Create instance' }).click();
    await page.locator('#modules-error').waitFor();
    expect(page.url(), 'the address shows the form, not the list').to.equal(`${web}/instances/new?project=acme-norte`);
    expect(await page.getByLabel('Name').inputValue()).to.equal('Norte QA');
    await screenshot(page, 'instances-new-refused');
    await page.getByLabel('Modules').fill('stock, purchase');
    await page.getByRole('button', { name: 'Create instance' }).click();
    await page.getByRole('heading', { name: 'Norte QA', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${web}/instances/acme-norte-norte-qa`);
    await page.getByText('Instance Norte QA requested: it is queued for provisioning.').waitFor();
  });

  it('shows the upload form', async () => {
    await page.goto(`${web}/instances/upload?project=acme-norte`);
    await page.getByRole('heading', { name: 'New instance from a dump' }).waitFor();
    await screenshot(page, 'instances-upload');
  });
});
