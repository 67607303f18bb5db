import { expect } from 'chai';
import { launchChromium, newContext, screenshot } from '#test/support/browser.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { USERS } from '#test/support/webPlatform.ts';
import { adminerMissing, startDbAdminFixture, type DbAdminFixture } from './dbAdminFixture.ts';

describe('the database admin in Chromium, from the instance page to a query', function () {
  this.timeout(120_000);
  let fixture: DbAdminFixture;

  before(async function () {
    const missing = adminerMissing();
    if (missing) {
      console.warn(`      skipped: ${missing} (.ci/run installs it)`);
      return this.skip();
    }
    fixture = await startDbAdminFixture();
  });
  after(() => fixture?.platform.stop());

  it("signs in, follows the instance page's link, browses a table and runs a query under /dbadmin/<slug>/, scripts running under Adminer's policy", async () => {
    const { web } = fixture.platform;
    const home = `${web}/dbadmin/${fixture.slug}/`;
    // Web's link opens Adminer on the instance's own tools host, under the same path.
    const toolHome = new RegExp(`^http://dbadmin-${fixture.slug}\\.tools\\.localhost:\\d+/dbadmin/${fixture.slug}/`);
    const browser = await launchChromium();
    try {
      const page = await (await newContext(browser)).newPage();
      const scriptErrors: string[] = [];
      page.on('pageerror', (error) => scriptErrors.push(error.message));
      page.on('console', (message) => void (message.type() === 'error' && scriptErrors.push(message.text())));
      const leftTheTool: string[] = [];
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame() && !frame.url().startsWith(home) && !toolHome.test(frame.url()) && !frame.url().startsWith(`${web}/login`) && !frame.url().startsWith(`${web}/instances/`)) leftTheTool.push(frame.url());
      });

      await page.goto(`${web}/instances/${fixture.slug}`);
      await page.getByLabel('E-mail').fill(USERS.developer);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // A third-party tool opens in a tab of its own (it has no way back to Forja): follow its link here.
      const toolLink = page.getByRole('link', { name: 'Database admin (new tab)' });
      expect(await toolLink.getAttribute('target')).to.equal('_blank');
      await page.goto(new URL((await toolLink.getAttribute('href')) ?? '', page.url()).href);
      await page.waitForURL((url) => toolHome.test(url.href) && url.search === `?pgsql=&username=${fixture.database}&db=${fixture.database}&ns=public`);
      expect(await page.title()).to.include('Database admin');
      await page.locator('#tables').getByRole('link', { name: 'select', exact: true }).click();
      await page.waitForURL(/&select=res_partner$/);
      await page.getByRole('cell', { name: 'Acme Norte SA', exact: true }).waitFor();
      await screenshot(page, 'dbadmin-table');

      await page.getByRole('link', { name: 'SQL command' }).click();
      await page.waitForURL(/&sql=$/);
      // Adminer's SQL box is a contenteditable <pre> over the textarea once its scripts run.
      const editor = page.locator('pre.sqlarea');
      await editor.click();
      await page.keyboard.type("select name, upper(name) as shouting from res_partner where name like 'Acme%'");
      await page.getByRole('button', { name: 'Execute' }).click();
      await page.getByRole('cell', { name: 'ACME NORTE SA', exact: true }).waitFor();
      expect(toolHome.test(page.url())).to.equal(true);
      expect(leftTheTool).to.deep.equal([]);
      expect(scriptErrors).to.deep.equal([]);
      await screenshot(page, 'dbadmin-sql');
    } finally {
      await browser.close();
    }
  });
});
