import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { startSshGitServer, type SshGitServer } from '#test/support/sshGitServer.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';

/**
 * Issue 14's "done when", in Chromium: an admin generates a key on /ssh-keys and copies its public
 * key into the git host's authorized keys (a real sshd on 127.0.0.1), adds the key to a project,
 * verifies the repository and its private submodule, and creates an instance from the private
 * ssh:// repository that reaches running.
 */
describe('web in Chromium: an SSH key from the keyring to a running instance of a private repository', function () {
  this.timeout(180_000);
  let sshd: SshGitServer;
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let head: string;

  before(async () => {
    sshd = await startSshGitServer();
    await sshd.createRepository('addons', { files: { 'README.md': 'private addons\n' } });
    ({ head } = await sshd.createRepository('erp', { files: { 'README.md': 'customer ERP\n' }, submodules: [{ path: 'addons/private', url: sshd.url('addons') }] }));
    const adminUrl = (await testCluster()).urlFor('postgres');
    platform = await startWebPlatform(
      {},
      [executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: adminUrl, FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' })],
      { FORJA_GIT_ALLOW_HOSTS: '127.0.0.1' },
    );
    browser = await launchChromium();
    context = await newContext(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.web });
    page = await context.newPage();
    await signInWithForm(page, platform.web, USERS.admin, PASSWORD);
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      await platform?.stop();
      await sshd?.stop();
    }
  });

  it('generates a key whose public key the copy button puts on the clipboard', async () => {
    await page.goto(`${platform.web}/ssh-keys`);
    await page.getByLabel('Name').first().fill('acme deploy');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.waitForURL(/\/ssh-keys(#key-\d+)?$/);
    expect(await page.locator('.flash').first().textContent()).to.match(/Key acme deploy added \(SHA256:/);
    const publicKey = (await page.getByLabel('Public key of acme deploy').inputValue()).trim();
    expect(publicKey).to.match(/^ssh-ed25519 AAAA\S+ forja:acme-deploy$/);
    await page.getByRole('button', { name: 'Copy the public key of acme deploy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(publicKey);
    // An OpenSSH private key's body begins with the base64 of "openssh-key-v1".
    expect(await page.content()).not.to.include('b3BlbnNzaC1rZXktdjE');
    await screenshot(page, 'ssh-keys');
    // The operator pastes it into the git host as a deploy key.
    await sshd.authorize(publicKey);
  });

  it('refuses a pasted public key with the reason, keeping the name but not the pasted text', async () => {
    await page.getByLabel('Name').nth(1).fill('pasted by mistake');
    await page.getByLabel('Private key').fill('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleOnlyNotAKeyAtAll user@host');
    await page.getByRole('button', { name: 'Add key' }).click();
    await page.getByText('this is a public key').waitFor();
    expect(await page.getByLabel('Name').nth(1).inputValue()).to.equal('pasted by mistake');
    expect(await page.getByLabel('Private key').inputValue()).to.equal('');
  });

  it('adds the key to a project, verifies the repository and its submodule, and pins the host key', async () => {
    await page.goto(`${platform.web}/projects`);
    await page.getByLabel('New project name').fill('Acme Private');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/projects\/acme-private$/);
    await page.getByLabel('Repository URL').fill(sshd.url('erp'));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Repository saved').waitFor();
    await page.getByLabel('Add a key from the keyring').selectOption({ index: 0 });
    await page.getByRole('button', { name: 'Add key' }).click();
    await page.getByText('Key added').waitFor();
    await page.getByRole('button', { name: 'Verify repository and submodules' }).click();
    await page.getByText('Repository verification:').waitFor();
    const rows = page.locator('#verification tbody tr');
    expect(await rows.count(), await page.locator('#verification').textContent() ?? '').to.equal(2);
    expect(await rows.nth(0).textContent()).to.include('ok').and.to.include(head.slice(0, 12));
    expect(await rows.nth(1).textContent()).to.include('submodule addons/private').and.to.include('ok');
    expect(await page.locator('.host-keys').textContent()).to.include(await sshd.hostKeyFingerprint());
    await screenshot(page, 'project-ssh-verify');
  });

  it('creates an instance from the private repository that reaches running', async () => {
    await page.goto(`${platform.web}/instances/new?project=acme-private`);
    await page.getByLabel('Name', { exact: true }).fill('dev');
    await page.getByRole('button', { name: /Create instance/ }).click();
    await page.waitForURL(/\/instances\/acme-private-dev$/);
    await waitUntil(
      async () => {
        await page.waitForTimeout(1000);
        await page.reload();
        return (await page.locator('.badge.status-running').count()) > 0;
      },
      'the instance to be running',
      90_000,
    );
    expect(await page.content()).to.include(head.slice(0, 12));
  });
});
