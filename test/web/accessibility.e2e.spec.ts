import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PadronService } from '#services/padron/http/server.ts';
import { migratePadron } from '#services/padron/storage/migrations/index.ts';
import { startTestService } from '#test/padron/support/padronDatabase.ts';
import { axeViolations, describeViolations } from '#test/support/axe.ts';
import { ARTIFACTS_DIR, launchChromium, newContext, pageCsrfToken, screenshot, signInWithForm, submitFormBuiltInPage } from '#test/support/browser.ts';
import { htmlProblems } from '#test/support/htmlValidation.ts';
import { focusRingProblems, sidewaysOverflow } from '#test/support/pageProbes.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { buildA11yFixture } from './a11yFixture.ts';
import { a11yPages, type A11yPage } from './a11yPages.ts';

const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

/**
 * Every page of `a11yPages.ts` in Chromium, as its role sees it: axe-core (WCAG 2.0/2.1 A and AA)
 * finds nothing at 1280 and at 390 px; at 390 px nothing scrolls sideways and every control's
 * keyboard focus is a visible ring on screen; html-validate's `recommended` preset passes on the
 * HTML as served. One platform and one browser for all pages.
 */
describe('every page in Chromium: axe, reflow, focus and html-validate', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let padron: PadronService;
  let browser: Browser;
  const pages = new Map<string, Page>();
  const contexts: BrowserContext[] = [];

  before(async () => {
    platform = await startWebPlatform();
    await migratePadron(platform.infra.db);
    padron = await startTestService(platform.infra.pool);
    await buildA11yFixture(platform);
    browser = await launchChromium();
    for (const as of new Set(a11yPages.map((entry) => entry.as ?? 'admin'))) {
      const context = await newContext(browser, { viewport: DESKTOP });
      contexts.push(context);
      const page = await context.newPage();
      if (as !== 'visitor') await signInWithForm(page, platform.web, USERS[as], PASSWORD);
      pages.set(as, page);
    }
  });
  after(async () => {
    try {
      await browser?.close();
      await padron?.close();
    } finally {
      await platform?.stop();
    }
  });

  const urlOf = (entry: A11yPage) => `${entry.on === 'padron' ? padron.url : platform.urls[entry.on ?? 'web']}${entry.path}`;

  for (const entry of a11yPages) {
    it(`${entry.name} (${entry.path})`, async () => {
      const page = pages.get(entry.as ?? 'admin')!;
      await page.setViewportSize(DESKTOP);
      let response = await page.goto(urlOf(entry));
      if (entry.submit) {
        const { action, fields } = entry.submit;
        const answered = page.waitForResponse((answer) => answer.request().method() === 'POST' && new URL(answer.url()).pathname === action);
        await submitFormBuiltInPage(page, action, { _csrf: await pageCsrfToken(page), ...fields });
        response = await answered;
        await page.waitForLoadState();
      }
      expect(response?.status(), 'status').to.equal(entry.status ?? 200);
      const served = (await response?.text()) ?? '';
      const swagger = entry.on !== undefined && entry.on !== 'web';
      if (swagger) await page.locator('.opblock').first().waitFor();

      const problems: string[] = [];
      problems.push(...describeViolations(await axeViolations(page)).map((line) => `axe at 1280 px: ${line}`));
      await page.setViewportSize(PHONE);
      problems.push(...describeViolations(await axeViolations(page)).map((line) => `axe at 390 px: ${line}`));
      const overflow = await sidewaysOverflow(page);
      if (overflow.scroll > 0) problems.push(`scrolls ${overflow.scroll} px sideways at 390 px: ${overflow.sticking.join(', ')}`);
      if (!swagger) {
        await page.keyboard.press('Tab');
        problems.push(...(await focusRingProblems(page)).map((line) => `focus at 390 px: ${line}`));
      }
      problems.push(...(await htmlProblems(served, entry.name)).map((line) => `html-validate: ${line}`));
      if (problems.length) {
        const name = `a11y-${entry.name.replace(/\W+/g, '-')}`;
        await screenshot(page, name);
        writeFileSync(`${ARTIFACTS_DIR}${name}.html`, served);
      }
      expect(problems, problems.join('\n')).to.deep.equal([]);
    });
  }

  it('lets a keyboard user skip the navigation: the first Tab reaches “Skip to main content”, which leads to the form', async () => {
    const page = pages.get('developer')!;
    await page.setViewportSize(PHONE);
    await page.goto(`${platform.web}/instances/new`);
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to main content' });
    expect(await page.evaluate('document.activeElement.textContent')).to.equal('Skip to main content');
    const box = await skip.boundingBox();
    expect(box && box.x >= 0 && box.y >= 0 && box.x + box.width <= PHONE.width, 'shown on screen while focused').to.equal(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).to.equal('main');
    // The breadcrumb's link and the link to the dump form, then the form's first field.
    for (let tab = 0; tab < 3; tab++) await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id'), 'the first field, three Tabs into the content').to.equal('f-name');
  });
});
