import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getRun } from '#projections/erpMigrations/migrationRuns.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { servedCustomerDump } from '#test/support/customerDump.ts';
import { basic, PASSWORD } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { workingInstanceSlug } from '#shared/instanceDatabase/reservedNames.ts';

/**
 * From a migrated run's dump to a running instance, in Chromium: the run page's link, the form it
 * preloads, the instance's page until it runs; and the working instance's project page exists.
 */
describe('web in Chromium: an instance from a migration run’s dump', function () {
  this.timeout(300_000);
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let web: string;
  const slug = 'acme-upgrade';

  const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${platform.controlPlane}${path}`, {
      ...init,
      headers: { authorization: basic(USERS.developer), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });

  before(async () => {
    const cluster = await testCluster();
    const { url } = await servedCustomerDump(cluster);
    const executor = executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 60 });
    platform = await startWebPlatform({}, [executor], { FORJA_PULL_ALLOW_HOSTS: '127.0.0.1' });
    web = platform.web;
    const developer = await platform.signedIn('developer');
    expect((await developer.post('/migrations/new', { name: 'Acme upgrade', origin: '16.0', destination: '17.0', pull_url: url })).location).to.equal(`/migrations/${slug}`);
    expect((await developer.post(`/migrations/${slug}/run`, {})).status).to.equal(303);
    const readModel = platform.infra.db.withSchema('read_model');
    await waitUntil(
      async () => {
        const run = await getRun(readModel, slug, 1);
        if (run?.status === 'failed') throw new Error(`the migration run failed: ${run.error}`);
        return run?.status === 'succeeded';
      },
      'the migration run to succeed',
      240_000,
    );
    browser = await launchChromium();
    context = await newContext(browser);
    page = await context.newPage();
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      // ERP servers outlive the executor by design: stop the instances the test started.
      const running = platform ? ((await (await api('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>) : [];
      for (const { slug: one } of running) await api(`/api/v1/instances/${one}/action`, { method: 'POST', json: { action: 'stop' } });
      if (running.length > 0) await waitUntil(async () => ((await (await api('/api/v1/instances?status_filter=running')).json()) as unknown[]).length === 0, 'the instances to stop', 30_000).catch(() => undefined);
      await platform?.stop();
    }
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const open of context.pages()) await screenshot(open, `failed-from-backup-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
  });

  it('follows the run page’s link to a form preloaded from the dump', async () => {
    await page.goto(`${web}/login`);
    await signInWithForm(page, web, USERS.developer, PASSWORD);
    await page.goto(`${web}/migrations/${slug}/runs/1`);
    await page.getByRole('heading', { name: 'Artifacts' }).waitFor();
    await screenshot(page, 'from-backup-run-page');
    await page.getByRole('link', { name: 'From this dump' }).click();
    await page.getByRole('heading', { name: 'New instance', level: 1 }).waitFor();
    expect(page.url()).to.match(new RegExp(`/instances/new\\?from_backup=\\d+&from_migration=${slug}$`));
    expect(await page.getByLabel('Name').inputValue()).to.equal('Acme upgrade run 1 dump');
    expect(await page.getByLabel('ERP version').inputValue()).to.equal('17.0');
    expect(await page.getByLabel('Edition').inputValue()).to.equal('community');
    const origin = await page.locator('#from-backup').innerText();
    expect(origin).to.match(/Database from the dump of run 1 of migration Acme upgrade, with the run’s filestore archive; its ERP is 17\.0/);
    expect(origin).to.include('dump_result.dump').and.match(/[0-9a-f]{64}/);
    await page.getByLabel('Project').fill('Acme');
    await page.getByLabel('Stage').selectOption('staging');
    await screenshot(page, 'from-backup-form');
  });

  it('creates it and watches it run on the destination version', async () => {
    await page.getByRole('button', { name: 'Create instance' }).click();
    await page.getByRole('heading', { name: 'Acme upgrade run 1 dump', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${web}/instances/acme-upgrade-run-1-dump`);
    await page.locator('#instance-status:not([hx-trigger]) .badge.status-running').waitFor({ timeout: 120_000 });
    const settings = await page.locator('dl.settings').innerText();
    expect(settings).to.include('the dump of run 1 of migration acme-upgrade with its filestore');
    expect(settings).to.include('17.0, community');
    await screenshot(page, 'from-backup-running');
  });

  it('opens the working instance’s project, Migrations, from its page', async () => {
    await page.goto(`${web}/instances/${workingInstanceSlug(slug, 1)}`);
    await page.locator('dl.settings').getByRole('link', { name: 'migrations' }).click();
    await page.getByRole('heading', { name: 'Migrations', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${web}/projects/migrations`);
    await page.goto(`${web}/projects`);
    await page.locator('#project-table').getByRole('link', { name: 'Migrations' }).waitFor();
    await screenshot(page, 'from-backup-projects');
  });
});
