import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's Chromium; playwright-core drives it and brings no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

/** Screenshots for people to look at; git-ignored. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts/', import.meta.url));

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Headless Chromium with a fresh profile (playwright gives each launch its own temporary user-data-dir). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
}

/** A context as a desktop user sees the pages, every wait bounded. */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB', ...options });
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(15_000);
  return context;
}

/** Saves a full-page screenshot as `test/artifacts/<name>.png` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = `${ARTIFACTS_DIR}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs in through the login form the way a person does, and waits for the page it lands on. */
export async function signInWithForm(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  if (!page.url().startsWith(`${baseUrl}/login`)) await page.goto(`${baseUrl}/login`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText(`Signed in as ${email}.`).waitFor();
}

/** The session's CSRF token as the page carries it (the layout's hx-headers). */
export async function pageCsrfToken(page: Page): Promise<string> {
  const headers = JSON.parse((await page.locator('.app').getAttribute('hx-headers')) ?? '{}') as Record<string, string>;
  return headers['X-CSRF-Token'] ?? '';
}

/**
 * Builds a plain form in the page and submits it, as a user could from the devtools: a native
 * navigation, not htmx. (A script string: the tests compile without the DOM's types.)
 */
export async function submitFormBuiltInPage(page: Page, action: string, fields: Record<string, string>): Promise<void> {
  await page.evaluate(`(() => {
    const form = document.createElement('form');
    form.method = 'post';
    form.action = ${JSON.stringify(action)};
    for (const [name, value] of Object.entries(${JSON.stringify(fields)})) {
      const input = document.createElement('input');
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  })()`);
}

/** The status of a form POST sent with the page's `fetch`, carrying `headers`. */
export async function postWithPageFetch(page: Page, path: string, form: Record<string, string>, headers: Record<string, string>): Promise<number> {
  const init = { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() };
  return Number(await page.evaluate(`fetch(${JSON.stringify(path)}, ${JSON.stringify(init)}).then((response) => response.status)`));
}
