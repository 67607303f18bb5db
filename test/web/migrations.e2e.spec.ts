import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { migrationPlayer } from './migrationsPlayer.ts';

describe('web in Chromium: migrations', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let web: string;
  const slug = 'acme-16-to-17';

  before(async () => {
    platform = await startWebPlatform();
    web = platform.web;
    const developer = await platform.signedIn('developer');
    for (const name of ['Sur Test', 'Oeste Test']) await developer.post('/migrations/new', { name, origin: '17.0', destination: '18.0', pull_url: 'https://files.example.com/other.dump' });
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
    for (const open of context.pages()) await screenshot(open, `failed-migrations-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
  });

  it('signs in and opens the migration list from the navigation', async () => {
    await page.goto(`${web}/login`);
    await signInWithForm(page, web, USERS.developer, PASSWORD);
    await page.getByRole('banner').getByRole('link', { name: 'Migrations' }).click();
    await page.getByRole('heading', { name: 'Migrations', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${web}/migrations`);
    expect(await page.locator('#migration-table tbody tr').count()).to.equal(2);
  });

  it('creates a migration with the form: a refused address is shown at its field, with what was typed kept', async () => {
    await page.getByRole('link', { name: 'New migration' }).click();
    await page.getByRole('heading', { name: 'New migration', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('Acme 16 to 17');
    await page.getByLabel('From version').selectOption('16.0');
    await page.getByLabel('To version').selectOption('17.0');
    await page.getByLabel('Purpose').selectOption('production');
    await page.getByLabel('Notify').fill('ops@example.com\nana@example.com');
    await page.getByLabel('Download address of the dump').fill('http://127.0.0.1:9000/acme.dump');
    await screenshot(page, 'migrations-new');
    await page.getByRole('button', { name: 'Create migration' }).click();
    await page.locator('#pull_url-error').waitFor();
    expect(await page.locator('#pull_url-error').innerText()).to.include('loopback');
    expect(await page.getByLabel('Download address of the dump').getAttribute('aria-describedby')).to.equal('pull_url-error');
    expect(await page.getByLabel('Name').inputValue()).to.equal('Acme 16 to 17');
    expect(await page.getByLabel('Notify').inputValue()).to.equal('ops@example.com\nana@example.com');
    await screenshot(page, 'migrations-new-refused');
    await page.getByLabel('Download address of the dump').fill('https://backup:hunter2@files.example.com/acme.dump');
    await page.getByRole('button', { name: 'Create migration' }).click();
    await page.getByRole('heading', { name: 'Acme 16 to 17', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${web}/migrations/${slug}`);
    await page.getByText('Migration Acme 16 to 17 created as a draft: run it when you are ready.').waitFor();
    expect(await page.locator('.pull-url').innerText()).to.equal('https://files.example.com/acme.dump');
    expect(await page.locator('#migration-badge').innerText()).to.equal('draft');
    await screenshot(page, 'migrations-draft');
  });

  it('finds it in the list by searching, without reloading the page', async () => {
    await page.getByRole('navigation', { name: 'breadcrumb' }).getByRole('link', { name: 'Migrations' }).click();
    await page.getByRole('heading', { name: 'Migrations', level: 1 }).waitFor();
    await page.evaluate('window.forjaStillHere = true');
    await page.getByLabel('Search migrations by name').pressSequentially('acme');
    await page.getByRole('link', { name: 'Sur Test' }).waitFor({ state: 'detached' });
    expect(await page.locator('#migration-table tbody tr').count()).to.equal(1);
    expect(page.url()).to.include('search=acme');
    expect(await page.evaluate('window.forjaStillHere === true'), 'the page was reloaded').to.equal(true);
    await screenshot(page, 'migrations-list');
    await page.getByRole('link', { name: 'Acme 16 to 17' }).click();
    await page.getByRole('heading', { name: 'Acme 16 to 17', level: 1 }).waitFor();
  });

  it('runs it: queued, its steps listed and followed every 2 s; a started step shows up and the page follows the status', async () => {
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Run 1 is queued: it starts when an executor takes it.', { exact: true }).first().waitFor();
    expect(await page.locator('#migration-badge').innerText()).to.equal('queued');
    expect(await page.locator('#run-steps').getAttribute('hx-trigger')).to.equal('every 2s');
    expect(await page.locator('#run-steps tbody tr.step').count()).to.be.greaterThan(10);
    await page.waitForRequest((request) => request.url().startsWith(`${web}/migrations/${slug}?shown=queued`));
    await screenshot(page, 'migrations-queued');
    // No executor runs in web tests: play its first step, as one would.
    const player = migrationPlayer(platform);
    await player.start(slug, 'fetch');
    await page.locator('#migration-badge').getByText('running').waitFor({ timeout: 8000 });
    await page.locator('#run-progress').getByText(/Run 1 is running step 1 of \d+: fetch\./).waitFor();
    await page.locator('#step-fetch.step-running').waitFor();
    await screenshot(page, 'migrations-running');
  });

  it('pauses and resumes it', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused: the running step is stopped; resume goes on from the last checkpoint.').waitFor();
    expect(await page.locator('#migration-badge').innerText()).to.equal('paused');
    expect(await page.locator('#run-steps').getAttribute('hx-trigger'), 'a paused run is not followed').to.equal(null);
    await screenshot(page, 'migrations-paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Resumed: the run is queued again.').waitFor();
    expect(await page.locator('#migration-badge').innerText()).to.equal('queued');
  });

  it('stops it only once the box is ticked', async () => {
    const posts: string[] = [];
    const count = (request: { method(): string; url(): string }) => void (request.method() === 'POST' && posts.push(request.url()));
    page.on('request', count);
    await page.getByRole('button', { name: 'Stop' }).click();
    expect(posts, 'the browser asks for the box first').to.deep.equal([]);
    await page.getByLabel('Drop its runs, working database and instances').check();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped: back to draft; its runs are dropped.').waitFor();
    page.off('request', count);
    expect(posts).to.deep.equal([`${web}/migrations/${slug}/stop`]);
    expect(await page.locator('#migration-badge').innerText()).to.equal('draft');
    await page.getByText('No runs.').waitFor();
    await screenshot(page, 'migrations-stopped');
  });

  it('deletes it by typing its name', async () => {
    await page.getByLabel('Migration name to confirm').fill('acme');
    await page.getByRole('button', { name: 'Delete migration' }).click();
    await page.locator('#delete-error').waitFor();
    expect(await page.locator('#delete-error').innerText()).to.equal("type the migration's name (Acme 16 to 17) to delete it");
    expect(page.url(), 'the address stays the page’s').to.equal(`${web}/migrations/${slug}`);
    await screenshot(page, 'migrations-delete-refused');
    await page.getByLabel('Migration name to confirm').fill('Acme 16 to 17');
    await page.getByRole('button', { name: 'Delete migration' }).click();
    await page.getByText(`Migration ${slug} deleted with its runs and artifacts.`).waitFor();
    expect(page.url()).to.equal(`${web}/migrations`);
    expect(await page.getByRole('link', { name: 'Acme 16 to 17' }).count()).to.equal(0);
    await screenshot(page, 'migrations-deleted');
  });
});
