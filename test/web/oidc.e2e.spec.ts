import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, newContext, screenshot } from '#test/support/browser.ts';
import { oidcSettings, startIdentityProvider, type TestIdentityProvider } from '#test/support/oidcProvider.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';

describe('web in Chromium: signing in through the identity provider', function () {
  this.timeout(90_000);
  let idp: TestIdentityProvider;
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext | undefined;

  before(async () => {
    idp = await startIdentityProvider();
    platform = await startWebPlatform(oidcSettings(idp));
    await idp.registerClient(`${platform.web}/auth/idp/callback`);
    idp.accounts.set('ana', { email: 'ana.perez@example.com' });
    idp.accounts.set('outsider', { email: 'someone@foreign.org' });
    browser = await launchChromium();
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  after(async () => {
    await browser?.close();
    await platform?.stop();
    await idp?.stop();
  });

  /** A fresh browser profile (no cookies at Forja or the provider) that clicks the provider button on /login and logs in at its form. */
  async function throughProviderForm(login: string, start = '/login'): Promise<Page> {
    context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${platform.web}${start}`);
    expect(new URL(page.url()).pathname).to.equal('/login');
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await page.waitForURL((url) => url.origin === idp.issuer && url.pathname.startsWith('/interaction/'));
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'anything');
    await page.click('button[type="submit"]');
    return page;
  }

  it('goes from the login page through the provider form to the projects, signed in', async () => {
    const page = await throughProviderForm('ana', '/projects');
    await page.waitForURL(`${platform.web}/projects`);
    // textContent, not innerText: the role badge is upper-cased by CSS only.
    expect(await page.locator('.who').textContent()).to.match(/ana\.perez@example\.com\s+viewer/);
    expect(await page.locator('.flash').first().textContent()).to.include('Signed in as ana.perez@example.com.');
    await screenshot(page, 'oidc-login');
  });

  it('shows an account of a foreign domain a refusal page with the ways forward', async () => {
    const page = await throughProviderForm('outsider');
    await page.waitForURL((url) => url.href.startsWith(`${platform.web}/auth/idp/callback`));
    expect(await page.locator('h1').textContent()).to.equal('Domain not allowed');
    expect(await page.getByRole('link', { name: 'Sign in with a password' }).isVisible()).to.equal(true);
    await screenshot(page, 'oidc-refused');
  });
});
