import { mkdirSync } from 'node:fs';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { instanceDir } from '#shared/platform/dataPaths.ts';
import { tenantAccountName } from '#shared/local/tenantAccount.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

const SLUG = 'shell-browser-main';

describe('the web shell in Chromium (xterm.js on a real pty)', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let browser: Browser;

  before(async () => {
    platform = await startWebPlatform();
    const developer = await platform.signedIn('developer');
    expect((await developer.post('/projects', { name: 'Shell Browser' })).status).to.equal(303);
    expect((await developer.post('/instances', { name: 'Main', project: 'shell-browser', erp_version: '18.0' })).location).to.equal(`/instances/${SLUG}`);
    await jobPlayer(platform).run(SLUG, standinFacts('http://127.0.0.1:18098'));
    mkdirSync(instanceDir(platform.config.FORJA_DATA_DIR, SLUG), { recursive: true });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('opens from the instance page, runs what is typed and shows its output, under the page’s CSP', async () => {
    const page = await (await newContext(browser, { viewport: { width: 1280, height: 900 } })).newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())));
    await signInWithForm(page, platform.web, USERS.developer, PASSWORD);
    await page.goto(`${platform.web}/instances/${SLUG}`);
    await page.getByRole('link', { name: 'Web shell' }).click();
    await page.waitForURL(`${platform.web}/instances/${SLUG}/shell`);
    await page.getByRole('status').filter({ hasText: 'connected' }).waitFor();
    const terminal = page.getByRole('application', { name: 'Web shell terminal on Main' });
    await terminal.click();
    await page.keyboard.type('echo "from the browser: $((6*7))" && id -un\n');
    await page.locator('.xterm-rows').getByText('from the browser: 42').waitFor();
    await page.locator('.xterm-rows').getByText(process.getuid?.() === 0 ? new RegExp(`^${tenantAccountName('instance', SLUG)}`) : /\w/).first().waitFor();
    // The terminal fills its box: its size follows the browser window (the fit addon), and stty sees it.
    await page.setViewportSize({ width: 900, height: 700 });
    await page.keyboard.type('stty size\n');
    const rows = page.locator('.xterm-rows');
    await rows.getByText(/^\d+ \d+\s*$/).last().waitFor();
    const shot = await screenshot(page, 'web-shell');
    expect(shot).to.match(/\.png$/);
    expect(problems).to.deep.equal([]);
  });

  it('copies the selection with Ctrl+Shift+C, pastes with Ctrl+Shift+V, and lets the keyboard leave with Escape then Tab', async () => {
    const context = await newContext(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.web });
    const page = await context.newPage();
    await signInWithForm(page, platform.web, USERS.developer, PASSWORD);
    await page.goto(`${platform.web}/instances/${SLUG}/shell`);
    await page.getByRole('status').filter({ hasText: 'connected' }).waitFor();
    await page.getByRole('application', { name: 'Web shell terminal on Main' }).click();
    await page.keyboard.type('echo copy-me-$((2+3))\n');
    const word = page.locator('.xterm-rows').getByText(/^copy-me-5\s*$/);
    await word.waitFor();
    // A double click selects the word xterm-style; the shortcut puts it on the browser's clipboard.
    const box = (await word.boundingBox())!;
    await page.mouse.dblclick(box.x + 10, box.y + box.height / 2);
    await page.keyboard.press('Control+Shift+C');
    await page.getByRole('status').filter({ hasText: 'copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).to.equal('copy-me-5');
    await page.evaluate("navigator.clipboard.writeText('echo pasted-$((3*3))')");
    await page.keyboard.press('Control+Shift+V');
    await page.keyboard.press('Enter');
    await page.locator('.xterm-rows').getByText(/^pasted-9\s*$/).waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await page.evaluate("document.activeElement.classList.contains('xterm-helper-textarea')")).to.equal(false);
  });

  it('says so in the terminal when the shell ends, and Reconnect opens a new one', async () => {
    const page = await (await newContext(browser)).newPage();
    await signInWithForm(page, platform.web, USERS.developer, PASSWORD);
    await page.goto(`${platform.web}/instances/${SLUG}/shell`);
    await page.getByRole('status').filter({ hasText: 'connected' }).waitFor();
    await page.getByRole('application', { name: 'Web shell terminal on Main' }).click();
    await page.keyboard.type('exit\n');
    await page.locator('.xterm-rows').getByText(/The shell exited with code 0/).waitFor();
    await page.getByRole('button', { name: 'Reconnect' }).click();
    await page.getByRole('status').filter({ hasText: 'connected' }).waitFor();
    await page.keyboard.type('echo again-$((1+1))\n');
    await page.locator('.xterm-rows').getByText('again-2').waitFor();
  });
});
