import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { uploadDir } from '#shared/platform/dataPaths.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { basic, PASSWORD } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
const STANDIN_UPGRADES = fileURLToPath(new URL('../../services/erp-standin/upgrades/', import.meta.url));

/**
 * A migration from a dump uploaded through the form, end to end: a 16.0 database the ERP stand-in
 * made is dumped (custom format), chosen in Chromium's file input, streamed to blob storage, and
 * the shipped 16.0 → 17.0 recipe runs on it with the process runtime until the page says migrated.
 */
describe('web in Chromium: a migration from an uploaded dump (issue 12)', function () {
  this.timeout(300_000);
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dumpFile: string;
  let cluster: Awaited<ReturnType<typeof testCluster>>;
  const slug = 'acme-uploaded';

  const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${platform.controlPlane}${path}`, {
      ...init,
      headers: { authorization: basic(USERS.developer), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  const databaseExists = async (name: string) => {
    const admin = new pg.Client(cluster.urlFor('postgres'));
    await admin.connect();
    try {
      return (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    } finally {
      await admin.end();
    }
  };

  before(async () => {
    cluster = await testCluster();
    const dir = runDir('migration-upload-e2e');
    const source = `customer_upload_${Date.now()}`;
    const parsed = new URL(cluster.url);
    const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    const installed = spawnSync(STANDIN, ['-d', source, '-i', 'sale,crm', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' } });
    expect(installed.status, installed.stderr).to.equal(0);
    dumpFile = join(dir, 'acme-16.dump');
    const dumped = spawnSync('pg_dump', ['-Fc', '-f', dumpFile, cluster.urlFor(source)], { encoding: 'utf8' });
    expect(dumped.status, dumped.stderr).to.equal(0);
    const executor = executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 60, FORJA_UPGRADE_PATH: `${STANDIN_UPGRADES}{version}` });
    platform = await startWebPlatform({}, [executor]);
    browser = await launchChromium();
    context = await newContext(browser);
    page = await context.newPage();
  });
  after(async () => {
    try {
      await browser?.close();
      // ERP servers outlive the executor by design: stop the working instance the run started.
      if (platform) {
        const running = (await (await call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>;
        for (const instance of running) await call(`/api/v1/instances/${instance.slug}/action`, { method: 'POST', json: { action: 'stop' } });
        await waitUntil(async () => ((await (await call('/api/v1/instances?status_filter=running')).json()) as unknown[]).length === 0, 'the working instances to stop', 30_000).catch(() => undefined);
      }
    } finally {
      await platform?.stop();
    }
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const open of context.pages()) await screenshot(open, `failed-migrations-upload-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
  });

  it('uploads a custom-format dump through the form and shows its name, size and sha256', async () => {
    await page.goto(`${web()}/login`);
    await signInWithForm(page, web(), USERS.developer, PASSWORD);
    await page.goto(`${web()}/migrations/new`);
    await page.getByRole('heading', { name: 'New migration', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('Acme uploaded');
    await page.getByLabel('From version').selectOption('16.0');
    await page.getByLabel('To version').selectOption('17.0');
    await page.getByLabel('Dump file to upload').setInputFiles(dumpFile);
    await screenshot(page, 'migrations-new-upload');
    await page.getByRole('button', { name: 'Create migration' }).click();
    await page.getByRole('heading', { name: 'Acme uploaded', level: 1 }).waitFor({ timeout: 60_000 });
    expect(page.url()).to.equal(`${web()}/migrations/${slug}`);
    const size = statSync(dumpFile).size;
    await page.getByText(/^Migration Acme uploaded created as a draft from the uploaded acme-16\.dump \([0-9.]+ (KiB|MiB)\): run it when you are ready\.$/).waitFor();
    const input = page.locator('#input-title').locator('xpath=ancestor::article');
    expect(await input.innerText()).to.include(`uploaded: acme-16.dump, `).and.include(`(${size} bytes)`).and.include(createHash('sha256').update(readFileSync(dumpFile)).digest('hex'));
    await screenshot(page, 'migrations-upload-draft');
  });

  it('runs it to migrated from the uploaded dump', async () => {
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Run 1 is queued: it starts when an executor takes it.', { exact: true }).first().waitFor();
    // The page follows the run every 2 s and reloads itself when the status changes.
    await page.locator('#migration-badge').getByText('migrated', { exact: true }).waitFor({ timeout: 240_000 });
    expect(await page.locator('#step-fetch.step-completed').count()).to.equal(1);
    expect(await page.locator('#step-restore.step-completed').count()).to.equal(1);
    const migration = (await (await call(`/api/v1/migrations/${slug}`)).json()) as { status: string; input: { mode: string; dump_name: string; bytes: number } };
    expect(migration).to.deep.include({ status: 'migrated' });
    expect(migration.input).to.deep.include({ mode: 'upload', dump_name: 'acme-16.dump', bytes: statSync(dumpFile).size });
    await screenshot(page, 'migrations-upload-migrated');
  });

  it('keeps the uploaded dump when stopped (the next run needs it) and removes it when deleted', async () => {
    const event = (await platform.infra.store.readStream('migration-acme-uploaded')).events[0]!;
    const { uploadId } = (event.data as { input: { uploadId: string } }).input;
    const upload = uploadDir(platform.config.FORJA_DATA_DIR, uploadId);
    const { working_database: working } = (await (await call(`/api/v1/migrations/${slug}`)).json()) as { working_database: string };
    expect(await databaseExists(working)).to.equal(true);
    await page.getByLabel('Drop its runs, working database and instances').check();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped: back to draft; its runs are dropped.').waitFor();
    await waitUntil(async () => !(await databaseExists(working)), 'the stop to remove the working database', 60_000);
    expect(existsSync(join(upload, 'dump')), 'the upload kept after a stop').to.equal(true);
    await page.getByLabel('Migration name to confirm').fill('Acme uploaded');
    await page.getByRole('button', { name: 'Delete migration' }).click();
    await page.getByText(`Migration ${slug} deleted with its runs and artifacts.`).waitFor();
    await waitUntil(() => !existsSync(upload), 'the delete to remove the uploaded dump', 60_000);
  });

  it('fits a 390 px wide phone without sideways scrolling, a refused form included, every input labelled and focus visible', async () => {
    const phone = await newContext(browser, { viewport: { width: 390, height: 844 } });
    try {
      const small = await phone.newPage();
      await signInWithForm(small, web(), USERS.developer, PASSWORD);
      await small.goto(`${web()}/migrations/new`);
      const overflow = () => small.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;
      await screenshot(small, 'migrations-new-390');
      expect(await overflow()).to.equal(0);
      await small.getByLabel('Name').fill('Phone');
      await small.getByRole('button', { name: 'Create migration' }).click();
      await small.locator('#pull_url-error').waitFor();
      expect(await small.getByLabel('Name').inputValue()).to.equal('Phone');
      expect(await overflow()).to.equal(0);
      const unlabelled = await small.evaluate(`[...document.querySelectorAll('main input:not([type=hidden]), main select, main textarea')].filter((field) => !field.labels || field.labels.length === 0).map((field) => field.name)`);
      expect(unlabelled).to.deep.equal([]);
      // Keyboard focus, as a keyboard user moves from the address to the file.
      await small.getByLabel('Download address of the dump').focus();
      await small.keyboard.press('Tab');
      const focused = (await small.evaluate(`(() => { const style = getComputedStyle(document.activeElement); return [document.activeElement.id, style.outlineStyle, style.outlineWidth, style.boxShadow].join(' | '); })()`)) as string;
      expect(focused.startsWith('f-dump |'), focused).to.equal(true);
      expect(focused, 'the focused file input shows it').to.not.match(/^f-dump \| none \| [^|]+ \| none$/);
      await screenshot(small, 'migrations-new-refused-390');
    } finally {
      await phone.close();
    }
  });

  it('uploads without JavaScript too: a plain form post, then the migration’s page', async () => {
    const plain = await newContext(browser, { javaScriptEnabled: false });
    try {
      const noScript = await plain.newPage();
      await signInWithForm(noScript, web(), USERS.developer, PASSWORD);
      await noScript.goto(`${web()}/migrations/new`);
      await noScript.getByLabel('Name').fill('No script');
      await noScript.getByLabel('Dump file to upload').setInputFiles(dumpFile);
      await noScript.getByRole('button', { name: 'Create migration' }).click();
      await noScript.getByRole('heading', { name: 'No script', level: 1 }).waitFor();
      expect(noScript.url()).to.equal(`${web()}/migrations/no-script`);
      await noScript.getByText(/created as a draft from the uploaded acme-16\.dump/).waitFor();
    } finally {
      await plain.close();
    }
  });

  const web = () => platform.web;
});
