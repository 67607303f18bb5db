import { expect } from 'chai';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { buildNotebookFixture, jupyterMissing, notebookServer } from './notebookSupport.ts';

describe('the notebook editor in Chromium: from the instance page to a cell run', function () {
  this.timeout(180_000);
  let platform: WebPlatform;

  before(async function () {
    const missing = jupyterMissing();
    if (missing) {
      console.warn(`    skipped: ${missing}`);
      return this.skip();
    }
    platform = await startWebPlatform();
    await buildNotebookFixture(platform);
  });
  after(() => platform?.stop());

  it('shows the link to developers only, opens the notebook list, creates a notebook and runs a cell through the proxy', async () => {
    const browser = await launchChromium();
    try {
      const viewerPage = await (await newContext(browser)).newPage();
      await signInWithForm(viewerPage, platform.web, USERS.viewer, PASSWORD);
      await viewerPage.goto(`${platform.web}/instances/acme-dev`);
      await viewerPage.getByRole('heading', { name: 'Tools' }).waitFor();
      expect(await viewerPage.getByRole('link', { name: 'Notebook editor' }).count()).to.equal(0);

      const context = await newContext(browser);
      const page = await context.newPage();
      const scriptErrors: string[] = [];
      await signInWithForm(page, platform.web, USERS.developer, PASSWORD);
      await page.goto(`${platform.web}/instances/acme-dev`);
      // A third-party tool opens in a tab of its own (it has no way back to Forja): follow its link here.
      const toolLink = page.getByRole('link', { name: 'Notebook editor (new tab)' });
      expect(await toolLink.getAttribute('target')).to.equal('_blank');
      await page.goto(new URL((await toolLink.getAttribute('href')) ?? '', page.url()).href);
      // Web's link opens the notebook on its own tools host.
      await page.waitForURL(/^http:\/\/editor-acme-dev\.tools\.localhost:\d+\/instances\/acme-dev\/editor\/proxy\/tree$/);
      page.on('pageerror', (error) => scriptErrors.push(error.message));
      await page.getByRole('link', { name: 'source' }).waitFor();
      await screenshot(page, 'notebook-editor-tree');

      // "New" → "Python 3" opens the new notebook in a tab of its own.
      await page.getByRole('button', { name: /New/ }).click();
      const [notebook] = await Promise.all([context.waitForEvent('page'), page.locator('#kernel-python3 a, a:has-text("Python 3")').first().click()]);
      notebook!.on('pageerror', (error) => scriptErrors.push(error.message));
      await notebook!.waitForURL(/\/instances\/acme-dev\/editor\/proxy\/notebooks\/Untitled.*\.ipynb/);
      await notebook!.locator('#kernel_indicator_icon.kernel_idle_icon').waitFor({ timeout: 30_000 });
      await notebook!.locator('.CodeMirror').first().click();
      await notebook!.keyboard.type("import os; print(6 * 7, os.getuid() != 0, 'JUPYTER_TOKEN' in os.environ)");
      await notebook!.keyboard.press('Shift+Enter');
      await notebook!.locator('.output_area pre', { hasText: '42 True False' }).waitFor({ timeout: 30_000 });
      // Saved through the proxy (a PUT that Jupyter's own XSRF check would have wanted a cookie for).
      await notebook!.keyboard.press('Control+s');
      const saved = async () => {
        // Asked from the notebook's own page: the tool host answers only its own cookie.
        return notebook!.evaluate(async () => {
          const file = await fetch('/instances/acme-dev/editor/proxy/api/contents/Untitled.ipynb');
          return file.ok && (await file.text()).includes('print(6 * 7');
        });
      };
      await waitUntil(saved, 'the notebook saved with its cell', 15_000);
      await screenshot(notebook!, 'notebook-editor-cell');

      const token = notebookServer(platform, 'acme-dev')!.token;
      expect(await notebook!.content()).to.not.include(token);
      expect(await notebook!.evaluate('document.cookie')).to.not.include(token);
      expect(scriptErrors).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });
});
