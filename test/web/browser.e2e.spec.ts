import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, newContext, pageCsrfToken, postWithPageFetch, screenshot, signInWithForm, submitFormBuiltInPage } from '#test/support/browser.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

describe('web in Chromium', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let page: Page;
  let web: string;

  before(async () => {
    platform = await startWebPlatform();
    web = platform.web;
    const developer = await platform.signedIn('developer');
    for (const name of ['Acme Norte', 'Acme Sur', 'Cabaña Los Álamos', 'Ferretería Central', 'Librería del Puerto']) await developer.post('/projects', { name });
    await developer.post('/projects/acme-norte/repo', { git_repo: 'git@github.com:acme/erp-norte.git' });
    browser = await launchChromium();
    const context = await newContext(browser);
    contexts.push(context);
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
    for (const [index, context] of contexts.entries()) {
      for (const open of context.pages()) await screenshot(open, `failed-${index}-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    }
  });

  describe('an admin, step by step', () => {
    it('is sent to the login form, signs in, and lands where they were going', async () => {
      await page.goto(`${web}/projects`);
      expect(page.url()).to.equal(`${web}/login?next=%2Fprojects`);
      await page.getByRole('heading', { name: 'Sign in to Forja' }).waitFor();
      await screenshot(page, 'login');
      await signInWithForm(page, web, USERS.admin, PASSWORD);
      expect(page.url()).to.equal(`${web}/projects`);
      await page.getByRole('link', { name: 'Acme Norte' }).waitFor();
      await screenshot(page, 'projects');
    });

    it('creates a project and lands on its page', async () => {
      await page.getByLabel('New project name').fill('Ñandú Sistemas');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByRole('heading', { name: 'Ñandú Sistemas', level: 1 }).waitFor();
      expect(page.url()).to.equal(`${web}/projects/nandu-sistemas`);
      await page.getByText('Project Ñandú Sistemas created.').waitFor();
    });

    it('finds it with the active search: the table updates in place, without reloading the page', async () => {
      await page.getByRole('banner').getByRole('link', { name: 'Projects' }).click();
      await page.getByRole('link', { name: 'Acme Norte' }).waitFor();
      await page.evaluate('window.forjaStillHere = true');
      await page.getByLabel('Search projects').pressSequentially('ñandú');
      await page.waitForURL(`${web}/projects?q=%C3%B1and%C3%BA`);
      // waitForFunction would evaluate a string, which the pages' CSP forbids: wait on the last other match leaving.
      await page.getByRole('link', { name: 'Cabaña Los Álamos' }).waitFor({ state: 'detached' });
      expect(await page.locator('#project-table tbody tr').count()).to.equal(1);
      expect(await page.locator('#project-table tbody tr').innerText()).to.include('Ñandú Sistemas');
      expect(await page.evaluate('window.forjaStillHere === true'), 'the page was reloaded').to.equal(true);
    });

    it('opens it and sets its repository', async () => {
      await page.getByRole('link', { name: 'Ñandú Sistemas' }).click();
      await page.getByRole('heading', { name: 'Ñandú Sistemas', level: 1 }).waitFor();
      await page.getByLabel('Repository URL').fill('git@github.com:nandu/erp.git');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Repository saved. New instances will use it.').waitFor();
      expect(await page.locator('code.repo').innerText()).to.equal('git@github.com:nandu/erp.git');
      expect(await page.locator('code.hook').innerText()).to.match(/\/webhooks\/git\/nandu-sistemas\/[0-9a-f]{64}$/);
      await screenshot(page, 'project-detail');
    });

    it('fails to delete it with a wrong name, and is told that nothing was deleted', async () => {
      await page.getByLabel('Project name to confirm').fill('Nandu Sistemas');
      await page.getByRole('button', { name: 'Delete project' }).click();
      const error = page.locator('#delete-error');
      await error.waitFor();
      expect(await error.innerText()).to.equal('nothing was deleted: type the project name exactly (Ñandú Sistemas) to confirm');
      expect(await page.getByLabel('Project name to confirm').inputValue()).to.equal('Nandu Sistemas');
      await screenshot(page, 'delete-refused');
      expect(page.url(), 'the address bar shows the page, not the form’s URL').to.equal(`${web}/projects/nandu-sistemas`);
      expect(await platform.project('nandu-sistemas')).to.not.equal(undefined);
    });

    it('deletes it with the right name and is back at the list, without it', async () => {
      await page.getByLabel('Project name to confirm').fill('Ñandú Sistemas');
      await page.getByRole('button', { name: 'Delete project' }).click();
      await page.getByText('Project deleted.').waitFor();
      expect(page.url()).to.equal(`${web}/projects`);
      expect(await page.getByRole('link', { name: 'Ñandú Sistemas' }).count()).to.equal(0);
      expect(await platform.project('nandu-sistemas')).to.equal(undefined);
    });
  });

  describe('a developer whose session ended in another tab', () => {
    it('is shown why a boosted form was refused, instead of nothing happening', async () => {
      const context = await newContext(browser);
      contexts.push(context);
      const stale = await context.newPage();
      await signInWithForm(stale, web, USERS.developer, PASSWORD);
      await context.clearCookies();
      await stale.getByLabel('New project name').fill('Stale Form');
      await stale.getByRole('button', { name: 'Create project' }).click();
      await stale.getByText('This form has expired or did not come from Forja.').waitFor();
      expect(await platform.projectNames('Stale Form')).to.deep.equal([]);
    });
  });

  describe('a viewer', () => {
    let viewer: Page;
    before(async () => {
      const context = await newContext(browser);
      contexts.push(context);
      viewer = await context.newPage();
      await viewer.goto(`${web}/login`);
      await signInWithForm(viewer, web, USERS.viewer, PASSWORD);
    });

    it('sees the projects but no create button', async () => {
      await viewer.getByRole('link', { name: 'Acme Norte' }).waitFor();
      expect(await viewer.getByRole('button', { name: 'Create project' }).count()).to.equal(0);
      expect(await viewer.getByLabel('New project name').count()).to.equal(0);
    });

    it('gets 403 when posting anyway, from a form built in the page with its CSRF token', async () => {
      const token = await pageCsrfToken(viewer);
      expect(token).to.have.length.greaterThan(20);
      const posted = viewer.waitForResponse((response) => response.url() === `${web}/projects` && response.request().method() === 'POST');
      await submitFormBuiltInPage(viewer, '/projects', { _csrf: token, name: 'Viewer Was Here' });
      expect((await posted).status()).to.equal(403);
      await viewer.getByRole('heading', { name: 'Not allowed' }).waitFor();
      await viewer.getByText('This needs the developer role; you are signed in as viewer.').waitFor();
      await screenshot(viewer, 'forbidden');
      expect(await platform.projectNames('Viewer Was Here')).to.deep.equal([]);
    });

    it('gets 403 from fetch with the page’s CSRF token too', async () => {
      await viewer.goto(`${web}/projects`);
      const token = await pageCsrfToken(viewer);
      const status = await postWithPageFetch(viewer, '/projects', { name: 'Viewer Fetch' }, { 'X-CSRF-Token': token });
      expect(status).to.equal(403);
      expect(await platform.projectNames('Viewer Fetch')).to.deep.equal([]);
    });

    it('signs out with the Sign out button of the navigation, a real button in a form', async () => {
      await viewer.goto(`${web}/projects`);
      await screenshot(viewer, 'navigation-sign-out');
      await viewer.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
      await viewer.getByRole('heading', { name: 'Sign in to Forja' }).waitFor();
      expect(viewer.url()).to.equal(`${web}/login`);
      await viewer.goto(`${web}/projects`);
      expect(viewer.url()).to.equal(`${web}/login?next=%2Fprojects`);
    });
  });

  describe('without JavaScript', () => {
    let plain: Page;
    before(async () => {
      const context = await newContext(browser, { javaScriptEnabled: false });
      contexts.push(context);
      plain = await context.newPage();
    });

    it('signs in with the form', async () => {
      await plain.goto(`${web}/`);
      expect(plain.url()).to.equal(`${web}/login?next=%2F`);
      await signInWithForm(plain, web, USERS.developer, PASSWORD);
      expect(plain.url()).to.equal(`${web}/`);
    });

    it('creates a project and shows its page', async () => {
      await plain.getByLabel('New project name').fill('Sin JavaScript');
      await plain.getByRole('button', { name: 'Create project' }).click();
      await plain.getByText('Project Sin JavaScript created.').waitFor();
      expect(plain.url()).to.equal(`${web}/projects/sin-javascript`);
    });

    it('searches with the search button', async () => {
      await plain.goto(`${web}/projects`);
      await plain.getByLabel('Search projects').fill('acme');
      await plain.getByRole('button', { name: 'Search' }).click();
      await plain.waitForURL(`${web}/projects?q=acme`);
      expect(await plain.locator('#project-table tbody tr').count()).to.equal(2);
    });

    it('signs out with the Sign out button', async () => {
      await plain.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
      await plain.waitForURL(`${web}/login`);
      await plain.goto(`${web}/`);
      expect(plain.url()).to.equal(`${web}/login?next=%2F`);
    });
  });
});
