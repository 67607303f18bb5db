import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

/**
 * The recipe editor in Chromium: a broken save keeps the admin's exact text and points at the line
 * and column (the gutter marks the line, the finding's link puts the caret there); a fixed text
 * saves as the next version; the list shows it; the page does not scroll sideways at 390 px.
 */
describe('web in Chromium: the recipe editor', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    platform = await startWebPlatform();
    browser = await launchChromium();
    context = await newContext(browser);
    page = await context.newPage();
    await signInWithForm(page, platform.web, USERS.admin, PASSWORD);
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      await platform?.stop();
    }
  });

  it('keeps a broken text with its line and column, then saves the fixed one as version 2', async () => {
    await page.goto(`${platform.web}/admin/recipes`);
    await page.getByRole('link', { name: 'Edit community.16.0-17.0' }).click();
    await page.waitForURL(/\/admin\/recipes\/community\/16\.0-17\.0\/edit$/);
    const area = page.locator('#f-yaml');
    const original = await area.inputValue();
    const broken = original.replace('kind: restore }', 'kind: restore, retries: lots }');
    await area.fill(broken);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForSelector('.recipe-findings');
    expect(await area.inputValue(), 'the text as typed').to.equal(broken);
    const line = broken.split('\n').findIndex((text) => text.includes('retries: lots')) + 1;
    const finding = page.locator(`.goto-line[data-line="${line}"]`);
    expect(await finding.textContent()).to.match(new RegExp(`line ${line}, column \\d+`));
    expect(await page.locator('.recipe-gutter .mark-error').first().textContent()).to.equal(String(line));
    await finding.click();
    const caretLine = Number(await page.evaluate("(() => { const area = document.getElementById('f-yaml'); return area.value.slice(0, area.selectionStart).split('\\n').length; })()"));
    expect(caretLine, 'the caret is on the finding’s line').to.equal(line);
    await screenshot(page, 'recipe-editor-broken');

    await area.fill(original.replace('timeout: 2h', 'timeout: 4h'));
    await page.getByRole('button', { name: 'Validate only' }).click();
    await page.getByText('No errors: this recipe can be saved.').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/admin\/recipes$/);
    expect(await page.locator('.flash').first().textContent()).to.include('Recipe community.16.0-17.0 saved as version 2');
  });

  it('fits a 390 px wide screen: the editor and the list scroll inside themselves', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/admin/recipes', '/admin/recipes/community/17.0-18.0/edit']) {
      await page.goto(`${platform.web}${path}`);
      const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
      expect(overflow, `${path} scrolls sideways`).to.be.at.most(0);
    }
    await screenshot(page, 'recipe-editor-390');
  });
});
