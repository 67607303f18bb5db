import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

const HEAD = '3f2a9c1d4e5b6a7980112233445566778899aabb';
const NEWER = 'c0ffee00112233445566778899aabbccddeeff00';
/** One ERP line as long as a traceback's or a logged query's, with no space to break at. */
const LONG_LINE = `2026-11-23 10:02:12 ERROR odoo.modules.loading: ${'x'.repeat(400)}`;

/** The instance page in Chromium at 1280 px: a restart's badge and flash, and a long log line that must not widen the page. */
describe('web in Chromium: the instance page during and after jobs', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let web: string;
  let player: ReturnType<typeof jobPlayer>;

  const overflow = async () => Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
  const badge = () => page.locator('#instance-status .badge').first();

  before(async () => {
    platform = await startWebPlatform();
    web = platform.web;
    player = jobPlayer(platform);
    const developer = await platform.signedIn('developer');
    const create = async (form: Record<string, string>) => expect((await developer.post('/instances', { project: 'Taller Norte', erp_version: '18.0', ...form })).status, form['name']).to.equal(303);
    await create({ name: 'Restarted' });
    await create({ name: 'Long Log' });
    await create({ name: 'Never Built', git_repo: 'ssh://git@git.example.com/missing.git' });
    await create({ name: 'Behind', git_repo: 'ssh://git@git.example.com/taller.git' });
    await create({ name: 'Gone' });
    await player.run('taller-norte-restarted', standinFacts('http://127.0.0.1:18081'));
    await player.run('taller-norte-long-log', {}, 'install_modules');
    await player.start('taller-norte-long-log', 'install_modules');
    await player.fail('taller-norte-long-log', 'install_modules', 'module stock_extra not found', ['2026-11-23 10:02:11 INFO loading 41 modules', LONG_LINE]);
    await player.start('taller-norte-never-built', 'resolve_source');
    await player.fail('taller-norte-never-built', 'resolve_source', 'could not reach the repository ssh://git@git.example.com/missing.git (see the instance log)');
    await player.run('taller-norte-behind', { ...standinFacts('http://127.0.0.1:18082'), resolve_source: { branchHead: HEAD }, fetch_code: { commit: HEAD } });
    // A push during a job (here a stop) is remembered: a rebuild to NEWER follows the job.
    expect((await developer.post('/instances/taller-norte-behind/action', { action: 'stop' })).status).to.equal(303);
    await player.push('taller-norte-behind', NEWER);
    await player.run('taller-norte-gone', standinFacts('http://127.0.0.1:18083'));
    expect((await developer.post('/instances/taller-norte-gone/action', { action: 'destroy' })).status).to.equal(303);
    await player.run('taller-norte-gone');
    browser = await launchChromium();
    context = await newContext(browser);
    page = await context.newPage();
    await signInWithForm(page, web, USERS.developer, PASSWORD);
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
    await screenshot(page, `failed-instance-detail-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
  });

  it('restarts: the badge shows the job and its step, the flash stays while the job runs and goes when it ends', async () => {
    await page.goto(`${web}/instances/taller-norte-restarted`);
    expect(await badge().innerText()).to.equal('running');
    await screenshot(page, 'instance-detail-running');
    await page.getByRole('button', { name: 'Restart' }).click();
    const flash = page.locator('#instance-status .job-flash').getByText('Restarting taller-norte-restarted: the job is queued.');
    await flash.waitFor();
    expect(await badge().innerText()).to.equal('restarting · step 1 of 3');
    const polled = page.waitForResponse((response) => response.url() === `${web}/instances/taller-norte-restarted` && response.request().headers()['hx-request'] === 'true');
    await player.start('taller-norte-restarted', 'stop');
    await player.complete('taller-norte-restarted', 'stop');
    await player.start('taller-norte-restarted', 'start');
    await polled;
    await page.locator('#instance-status .badge.status-busy').getByText('restarting · step 2 of 3').waitFor();
    expect(await flash.isVisible(), 'the block refreshed, the job still runs: the flash stays').to.equal(true);
    expect(await page.locator('#instance-status .erp-url').count(), 'no address while the ERP is down').to.equal(0);
    await screenshot(page, 'instance-detail-restarting');
    await player.run('taller-norte-restarted');
    await page.locator('#instance-status:not([hx-trigger]) .badge.status-running').waitFor({ timeout: 6000 });
    expect(await page.getByText('the job is queued').count(), 'the job ended: its flash is gone').to.equal(0);
  });

  it('wraps a 400-character log line inside its card: the page is no wider than the window', async () => {
    await page.goto(`${web}/instances/taller-norte-long-log`);
    await page.locator('pre.log-tail').getByText('loading 41 modules').waitFor();
    expect(await overflow(), 'horizontal overflow in px').to.be.at.most(0);
    await screenshot(page, 'instance-detail-failed-long-log');
  });

  it('offers only Rebuild and Destroy for an instance that failed before it had a database', async () => {
    await page.goto(`${web}/instances/taller-norte-never-built`);
    expect(await page.locator('.instance-actions button').allInnerTexts()).to.deep.equal(['Rebuild', 'Destroy']);
    await screenshot(page, 'instance-detail-failed-never-provisioned');
  });

  it('shows the commit behind its branch head and the rebuild a push left pending', async () => {
    await page.goto(`${web}/instances/taller-norte-behind`);
    await page.locator('#instance-status .badge.behind').waitFor();
    await page.getByText('A push arrived during this job: a rebuild to the branch head follows.').waitFor();
    expect(await overflow()).to.be.at.most(0);
    await screenshot(page, 'instance-detail-behind');
  });

  it('says when a destroyed instance was destroyed, not where it ran', async () => {
    await page.goto(`${web}/instances/taller-norte-gone`);
    await page.getByText(/^Destroyed \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/).waitFor();
    expect(await page.getByText('Runs as a').count()).to.equal(0);
    await screenshot(page, 'instance-detail-destroyed');
  });

  it('tells on the project page what instances without a repository run', async () => {
    await page.goto(`${web}/projects/taller-norte`);
    await page.getByText('No repository: its instances run the standard ERP modules only').waitFor();
    await screenshot(page, 'project-detail-no-repository');
  });
});
