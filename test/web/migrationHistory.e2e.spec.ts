import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { verifyAuditLog } from '#services/migrations/audit/auditVerify.ts';
import { migrationDecider, type MigrationCommand } from '#services/migrations/domain/migration.decider.ts';
import { isPreflight, migrationStream, type LiveMigration } from '#services/migrations/domain/migration.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { systemMetadata } from '#shared/decider/systemMetadata.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { textOf } from '#test/support/webSession.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

/**
 * The auditor's history in Chromium: a migration whose first run failed its pre-flight on an
 * executor, was run anyway and then stopped, read by a viewer — rows, what stands out, filters
 * with and without JavaScript, the state as of an event, the export, and the page at 390 px.
 */
describe('web in Chromium: a migration’s history', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let web: string;
  const slug = 'audited-acme';

  /** What an executor appends: the decider's events with system metadata naming its host. */
  const asExecutor = (command: MigrationCommand) =>
    handleCommand(platform.infra.store, migrationDecider, migrationStream(slug), command, {
      metadata: ({ lastEvent }) => ({ ...systemMetadata({ via: 'executor', causedBy: lastEvent! }), host: 'exec-e2e' }),
    });

  before(async () => {
    platform = await startWebPlatform();
    web = platform.web;
    const developer = await platform.signedIn('developer');
    const created = await developer.post('/migrations/new', { name: 'Audited Acme', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/acme.dump' });
    expect(created.location).to.equal(`/migrations/${slug}`);
    expect((await developer.post(`/migrations/${slug}/run`, {})).status).to.equal(303);
    // Run 1 fails its first pre-flight check on the executor.
    const { state } = await aggregateStream(platform.infra.store, migrationDecider, migrationStream(slug));
    const { job } = (state as LiveMigration).runs[0]!;
    const preflight = job.plan.findIndex(isPreflight);
    for (const step of job.plan.slice(0, preflight)) {
      await asExecutor({ type: 'StartStep', jobId: job.jobId, step: step.id, attemptId: `a-${step.id}`, executor: 'exec-e2e:1' });
      await asExecutor({ type: 'CompleteStep', jobId: job.jobId, step: step.id, attemptId: `a-${step.id}`, durationMs: 30, facts: {} });
    }
    const check = job.plan[preflight]!.id;
    await asExecutor({ type: 'StartStep', jobId: job.jobId, step: check, attemptId: 'a-check', executor: 'exec-e2e:1' });
    await asExecutor({ type: 'FailStep', jobId: job.jobId, step: check, attemptId: 'a-check', durationMs: 12, error: 'base is 15.0, expected 16.0', retryable: false, logTail: [] });
    expect((await developer.post(`/migrations/${slug}/run-anyway`, { reason: 'the version row is stale; checked by hand' })).status).to.equal(303);
    expect((await developer.post(`/migrations/${slug}/stop`, { confirm: 'stop' })).status).to.equal(303);
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
    for (const open of context.pages()) await screenshot(open, `failed-history-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
  });

  const rowTexts = () => page.locator('#history-table tbody tr').allInnerTexts();

  it('opens from the migration page and lists every event, the override and the stop labelled', async () => {
    await page.goto(`${web}/login`);
    await signInWithForm(page, web, USERS.viewer, PASSWORD);
    await page.goto(`${web}/migrations/${slug}`);
    await page.getByRole('link', { name: 'History', exact: true }).click();
    await page.getByRole('heading', { name: 'History of Audited Acme', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${web}/migrations/${slug}/history`);
    const rows = await rowTexts();
    expect(rows[0]).to.match(/^1\s.*MigrationCreated\s+dev@example\.com/s);
    const override = page.locator('tr.highlight-override');
    expect(await override.count()).to.equal(1);
    expect(await override.locator('.flag').innerText()).to.match(/override/i);
    expect(await override.innerText()).to.include('the version row is stale; checked by hand');
    expect(await page.locator('tr.highlight-stop .flag').innerText()).to.match(/stop/i);
    const failed = page.locator('tr', { hasText: 'base is 15.0, expected 16.0' }).first();
    expect(await failed.innerText()).to.match(/system\s+exec-e2e · executor/);
    await screenshot(page, 'migrations-history');
  });

  it('filters by run and event type without reloading the page, and the URL keeps the filters', async () => {
    await page.evaluate('window.forjaStillHere = true');
    await page.getByLabel('Run', { exact: true }).selectOption('2');
    await page.waitForURL(/run=2/);
    await page.waitForFunction('document.querySelectorAll("#history-table tbody tr").length > 0 && [...document.querySelectorAll("#history-table tbody tr")].every((row) => /Run 2/.test(row.innerText))');
    await page.getByLabel('Event type').selectOption('MigrationRunRequested');
    await page.waitForURL(/type=MigrationRunRequested/);
    await page.waitForFunction('document.querySelectorAll("#history-table tbody tr").length === 1');
    expect(await page.evaluate('window.forjaStillHere')).to.equal(true);
    expect((await rowTexts())[0]).to.match(/override/i);
    expect(await page.locator('#history-table').innerText()).to.include('1 of');
  });

  it('filters with a plain form submit when JavaScript is off', async () => {
    const plain = await newContext(browser, { javaScriptEnabled: false });
    try {
      const noJs = await plain.newPage();
      await noJs.goto(`${web}/login`);
      await noJs.getByLabel('E-mail').fill(USERS.viewer);
      await noJs.getByLabel('Password').fill(PASSWORD);
      await noJs.getByRole('button', { name: 'Sign in' }).click();
      await noJs.waitForURL(`${web}/`);
      await noJs.goto(`${web}/migrations/${slug}/history`);
      await noJs.getByLabel('Actor').selectOption('system');
      await noJs.getByRole('button', { name: 'Filter' }).click();
      await noJs.waitForURL(/actor=system/);
      const rows = await noJs.locator('#history-table tbody tr').allInnerTexts();
      expect(rows.length).to.be.greaterThan(2);
      for (const row of rows) expect(row).to.include('system');
    } finally {
      await plain.close();
    }
  });

  it('opens the migration as of an event, folded from the stream, and walks to the next and previous', async () => {
    await page.goto(`${web}/migrations/${slug}/history`);
    const override = page.locator('tr.highlight-override');
    const version = Number(await override.locator('td').first().getByRole('link').innerText());
    await override.getByRole('link', { name: String(version), exact: true }).click();
    await page.getByRole('heading', { name: `Audited Acme as of event ${version} of`, level: 1 }).waitFor();
    expect(await page.locator('#state-status').innerText()).to.equal('queued');
    expect(await page.locator('#run-1 caption').innerText()).to.match(/Run 1 · run · failed/i);
    expect(await page.locator('#run-2 caption').innerText()).to.match(/Run 2 · run-anyway, from run 1, pre-flight skipped · queued/i);
    expect(await page.locator('#run-1').innerText()).to.include('base is 15.0, expected 16.0');
    await screenshot(page, 'migrations-history-state');
    await page.getByRole('link', { name: `Event ${version - 1}`, exact: false }).first().click();
    await page.getByRole('heading', { name: `Audited Acme as of event ${version - 1} of`, level: 1 }).waitFor();
    expect(await page.locator('#state-status').innerText()).to.equal('errored');
    await page.getByRole('link', { name: `Event ${version} →` }).click();
    await page.getByRole('heading', { name: `Audited Acme as of event ${version} of`, level: 1 }).waitFor();
  });

  it('downloads the export, which the verifier accepts', async () => {
    const res = await page.request.get(`${web}/migrations/${slug}/history.jsonl`);
    expect(res.status()).to.equal(200);
    expect(res.headers()['content-disposition']).to.equal(`attachment; filename=${slug}-history.jsonl`);
    const verdict = verifyAuditLog(await res.text());
    if (!verdict.ok) throw new Error(`line ${verdict.line}: ${verdict.problem}`);
    expect(verdict.headHash).to.equal(res.headers()['x-chain-head']);
  });

  it('scrolls the table inside its card at 390 px: nothing else in the page is wider than the screen', async () => {
    // The top bar is the layout's, shared by every page: this checks what the history pages put in <main>.
    const tooWide = () =>
      page.evaluate(`[...document.querySelectorAll('main *')].filter((el) => el.getBoundingClientRect().right > 391 && !el.closest('.table-scroll')).map((el) => el.tagName + '.' + el.className)`);
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${web}/migrations/${slug}/history`);
      expect(await tooWide()).to.deep.equal([]);
      // (Script strings: the tests compile without the DOM's types.)
      const box = (script: string) => page.evaluate(`((el) => ${script})(document.querySelector('#history-table .table-scroll'))`);
      expect(await box('el.scrollWidth > el.clientWidth + 100')).to.equal(true);
      expect(await box('(el.scrollLeft = el.scrollWidth, el.scrollLeft)')).to.be.greaterThan(0);
      await box('(el.scrollLeft = 0)');
      await screenshot(page, 'migrations-history-390');
      await page.goto(`${web}/migrations/${slug}/history/3`);
      expect(await tooWide()).to.deep.equal([]);
      await screenshot(page, 'migrations-history-state-390');
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  it('refuses a bad filter with its reason and the whole history, and an event out of range with a 404 page', async () => {
    await page.goto(`${web}/migrations/${slug}/history?run=abc`);
    expect(await page.locator('#filter-error').innerText()).to.include('run is a run number');
    expect((await rowTexts()).length).to.be.greaterThan(5);
    const missing = await page.goto(`${web}/migrations/${slug}/history/999`);
    expect(missing?.status()).to.equal(404);
    expect(await page.locator('main').innerText()).to.include(`The history of ${slug} has no event 999.`);
  });

  it('keeps a deleted migration’s history for admins; others get the not-found page', async () => {
    const developer = await platform.signedIn('developer');
    expect((await developer.post('/migrations/new', { name: 'Gone Acme', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/gone.dump' })).location).to.equal('/migrations/gone-acme');
    expect((await developer.post('/migrations/gone-acme/delete', { confirm_name: 'Gone Acme' })).location).to.equal('/migrations');
    const admin = await platform.signedIn('admin');
    const kept = await admin.get('/migrations/gone-acme/history');
    expect(kept.status).to.equal(200);
    expect(textOf(kept.html)).to.include('This migration was deleted: its pages are gone, its events remain. Only admins see this history.');
    expect(textOf(kept.html)).to.match(/ 2 Delete [^|]* MigrationDeleted /);
    expect((await admin.get('/migrations/gone-acme/history/2')).status).to.equal(200);
    expect((await admin.get('/migrations/gone-acme')).status).to.equal(404);
    for (const path of ['/migrations/gone-acme/history', '/migrations/gone-acme/history/1', '/migrations/gone-acme/history.jsonl']) {
      const refused = await developer.get(path);
      expect(refused.status, path).to.equal(404);
      expect(textOf(refused.html), path).to.include('There is no migration gone-acme, or only admins may see its history (it was deleted).');
    }
  });
});
