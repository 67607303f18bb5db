import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { isServerAlive, pidFilePath, readPidFile, type PidRecord } from '#services/executor/runtime/process/pidFile.ts';
import { instanceLogFile } from '#shared/platform/dataPaths.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { instanceClient, type InstanceBody } from '#test/support/instances.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

/** How long one status transition (provision, stop, start, destroy) may take on the real executor. */
const TRANSITION_MS = 60_000;
const SLUG = 'ferreteria-live-sucursal-centro';

const answersHealth = (url: string) => fetch(`${url}/web/health`, { signal: AbortSignal.timeout(5_000) }).then((res) => res.status === 200, () => false);

/**
 * The instance pages against the real executor (process runtime, the ERP stand-in), as an
 * operator uses them: create with the form, watch it come up, stop, start, read its logs, destroy.
 */
describe('web in Chromium: an instance on the real executor', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let client: ReturnType<typeof instanceClient>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let web: string;
  let erpUrl = '';
  let server: PidRecord | null = null;

  /** The status badge at rest: the block's job ended, so it no longer polls. */
  const settledBadge = (status: string) => page.locator(`#instance-status:not([hx-trigger]) .badge.status-${status}`);
  /** The status each htmx response that replaced the status block carried (its body is read after the swap, hence promises). */
  const polledStatuses = (into: Array<Promise<string>>) => (response: Response) => {
    const request = response.request();
    if (request.url() !== `${web}/instances/${SLUG}` || request.headers()['hx-request'] !== 'true') return;
    into.push(response.text().then((html) => /class="badge status-(\w+)"/.exec(html)?.[1] ?? '?', () => '?'));
  };

  before(async () => {
    const erpDatabaseUrl = (await testCluster()).urlFor('postgres');
    platform = await startWebPlatform({}, [executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: erpDatabaseUrl, FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' })]);
    web = platform.web;
    client = instanceClient(platform.controlPlane, USERS.developer);
    browser = await launchChromium();
    context = await newContext(browser);
    page = await context.newPage();
  });
  after(async function () {
    this.timeout(3 * TRANSITION_MS);
    try {
      // ERP servers outlive the executor by design: whatever a failed test left running is stopped here.
      if (client) await stopEverything(client);
    } finally {
      try {
        await browser?.close();
      } finally {
        await platform?.stop();
      }
    }
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const open of context.pages()) await screenshot(open, `instances-live-failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 50)}`).catch(() => undefined);
  });

  it('signs in as a developer and fills the new-instance form for a new project', async () => {
    await signInWithForm(page, web, USERS.developer, PASSWORD);
    await page.goto(`${web}/instances/new`);
    await page.getByRole('heading', { name: 'New instance', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('Sucursal Centro');
    await page.getByLabel('Project').fill('Ferretería Live');
    await page.locator('#project-repo').getByText('There is no project “Ferretería Live” yet: creating the instance creates it.').waitFor();
    await page.getByLabel('Stage').selectOption('development');
    await page.getByLabel('ERP version').selectOption('17.0');
    await page.getByLabel('Modules').fill('sale stock');
    await screenshot(page, 'instances-live-new');
  });

  it('submits it and lands on the instance page while it is queued or provisioning', async () => {
    await page.getByRole('button', { name: 'Create instance' }).click();
    await page.getByRole('heading', { name: 'Sucursal Centro', level: 1 }).waitFor();
    expect(page.url()).to.equal(`${web}/instances/${SLUG}`);
    await page.getByText('Instance Sucursal Centro requested: it is queued for provisioning.').waitFor();
    expect((await platform.project('ferreteria-live'))?.name, 'the new project').to.equal('Ferretería Live');
    expect(await page.locator('#instance-status .badge').innerText()).to.be.oneOf(['queued', 'provisioning']);
    expect(await page.locator('#instance-status').getAttribute('hx-trigger')).to.equal('every 2s');
    await screenshot(page, 'instances-live-queued');
  });

  it('watches the status block refresh by itself, without a reload, to running with every step completed', async () => {
    await page.evaluate('window.forjaStillHere = true');
    const first = await page.locator('#instance-status .badge').innerText();
    const polled: Array<Promise<string>> = [];
    const record = polledStatuses(polled);
    page.on('response', record);
    try {
      await settledBadge('running').waitFor({ timeout: TRANSITION_MS });
    } finally {
      page.off('response', record);
    }
    expect(await page.evaluate('window.forjaStillHere === true'), 'the page was reloaded').to.equal(true);
    const seen = [first, ...(await Promise.all(polled))];
    expect(seen.length, `the block polled: ${seen.join(' → ')}`).to.be.at.least(2);
    expect(seen.at(-1)).to.equal('running');
    expect(seen.slice(0, -1).every((status) => status === 'queued' || status === 'provisioning'), seen.join(' → ')).to.equal(true);
    const steps = page.locator('#instance-status tr.step');
    expect(await steps.count()).to.be.at.least(5);
    expect(await page.locator('#instance-status tr.step:not(.step-completed)').count(), 'steps not completed').to.equal(0);
    expect(new Set(await page.locator('#instance-status .step-state').allTextContents())).to.deep.equal(new Set(['completed']));
    expect(await page.locator('.instance-actions button').allInnerTexts()).to.deep.equal(['Stop', 'Restart', 'Rebuild', 'Destroy']);
    await page.getByText('This instance runs on Forja’s ERP stand-in (process runtime)').waitFor();
    // Provisioned while the page was open: the Tools card, swapped in with the polls, offers the database admin (it was missing until a reload).
    expect(await page.locator('#instance-tools a', { hasText: 'Database admin' }).count()).to.equal(1);
    expect(await page.locator('#instance-tools').count(), 'one Tools card').to.equal(1);
    await screenshot(page, 'instances-live-running');
  });

  it('shows the ERP’s address, and it answers /web/health', async () => {
    const link = page.locator('#instance-status .erp-url a');
    erpUrl = (await link.getAttribute('href')) ?? '';
    expect(erpUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await link.innerText()).to.equal(erpUrl);
    const res = await fetch(`${erpUrl}/web/health`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.include({ status: 'pass' });
    server = readPidFile(pidFilePath(platform.config.FORJA_DATA_DIR, SLUG));
    expect(server && isServerAlive(server), 'the ERP process runs').to.equal(true);
  });

  it('stops it: the block follows the stop job to stopped, and the ERP no longer answers', async () => {
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText(`Stopping ${SLUG}: the job is queued.`).waitFor();
    await settledBadge('stopped').waitFor({ timeout: TRANSITION_MS });
    expect(await page.locator('#instance-status .erp-url').count(), 'no address while stopped').to.equal(0);
    expect(await page.locator('.instance-actions button').allInnerTexts()).to.deep.equal(['Start', 'Rebuild', 'Destroy']);
    expect(await answersHealth(erpUrl)).to.equal(false);
    expect(isServerAlive(server!), 'the ERP process is gone').to.equal(false);
    await screenshot(page, 'instances-live-stopped');
  });

  it('starts it again: running, and its ERP answers', async () => {
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByText(`Starting ${SLUG}: the job is queued.`).waitFor();
    await settledBadge('running').waitFor({ timeout: TRANSITION_MS });
    expect(await page.locator('#instance-status tr.step:not(.step-completed)').count(), 'steps not completed').to.equal(0);
    erpUrl = (await page.locator('#instance-status .erp-url a').getAttribute('href')) ?? '';
    expect(await answersHealth(erpUrl)).to.equal(true);
    server = readPidFile(pidFilePath(platform.config.FORJA_DATA_DIR, SLUG));
    expect(server && isServerAlive(server), 'the ERP process runs').to.equal(true);
    await screenshot(page, 'instances-live-started');
  });

  it('follows the ERP log: the stand-in’s lines and Forja’s step lines, then a new request as it happens', async () => {
    await page.getByRole('link', { name: 'ERP log', exact: true }).click();
    await page.getByRole('heading', { name: 'Logs of Sucursal Centro' }).waitFor();
    const log = page.locator('#log');
    await log.getByText(/ INFO forja_ferreteria_live_sucursal_centro odoo: ERP stand-in (\d+\.\d )?starting/).first().waitFor();
    await log.getByText(/ forja: /).first().waitFor();
    await page.locator('#log-state').getByText('live').waitFor();
    const marker = randomUUID();
    expect((await fetch(`${erpUrl}/web/health?probe=${marker}`)).status).to.equal(200);
    await log.getByText(`GET /web/health?probe=${marker} HTTP/1.1`).waitFor();
    await screenshot(page, 'instances-live-erp-log');
  });

  it('switches to the database log and downloads it', async () => {
    await page.getByRole('link', { name: 'Database', exact: true }).click();
    await page.waitForURL(`${web}/instances/${SLUG}/logs?source=db`);
    await page.getByText('What Forja did to its database').waitFor();
    await page.locator('#log').getByText(/ created database forja_ferreteria_live_sucursal_centro/).waitFor();
    await screenshot(page, 'instances-live-db-log');
    const downloading = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download', exact: true }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).to.equal(`${SLUG}-db.log`);
    const text = readFileSync(await download.path(), 'utf8');
    expect(text).to.match(/ created database forja_ferreteria_live_sucursal_centro, owned by role forja_ferreteria_live_sucursal_centro\n/);
    expect(text, 'the whole file').to.equal(readFileSync(instanceLogFile(platform.config.FORJA_DATA_DIR, SLUG, 'db'), 'utf8'));
  });

  it('destroys it once the dialog is accepted: destroyed, its ERP process gone', async () => {
    await page.getByRole('navigation', { name: 'breadcrumb' }).getByRole('link', { name: 'Sucursal Centro' }).click();
    await page.getByRole('heading', { name: 'Sucursal Centro', level: 1 }).waitFor();
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Destroy' }).click();
    expect(asked).to.equal('Destroy Sucursal Centro? Its database, filestore and files are deleted for good.');
    await page.getByText(`Destroying ${SLUG}: the job is queued.`).waitFor();
    await settledBadge('destroyed').waitFor({ timeout: TRANSITION_MS });
    expect(await page.locator('.instance-actions button').count(), 'nothing left to do').to.equal(0);
    expect(await answersHealth(erpUrl)).to.equal(false);
    expect(isServerAlive(server!), 'the ERP process is gone').to.equal(false);
    expect((await client.get(SLUG)).status).to.equal('destroyed');
    await screenshot(page, 'instances-live-destroyed');
  });
});

/** Lets every job end, then stops each instance still running; bounded like the tests. */
async function stopEverything(client: ReturnType<typeof instanceClient>): Promise<void> {
  const all = (await (await client.call('/api/v1/instances')).json()) as InstanceBody[];
  for (const { slug } of all) {
    await waitUntil(async () => !(await client.get(slug)).job.active, `${slug}'s job to end`, TRANSITION_MS).catch(() => undefined);
    if ((await client.get(slug)).status !== 'running') continue;
    await client.act(slug, 'stop');
    await client.settled(slug, 'stopped', TRANSITION_MS);
  }
}
