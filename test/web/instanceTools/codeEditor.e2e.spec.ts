import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { upgradeRequest } from '#test/support/rawUpgrade.ts';
import { openTool, toolUpgrade } from '#test/support/toolSession.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { SESSION_COOKIE, type WebSession } from '#test/support/webSession.ts';
import { codeEditorTool } from '#web/tools/instanceTools/codeEditor.tool.ts';

const SLUG = 'acme-norte-main';
const BASE = `/instances/${SLUG}/code/proxy`;
const MODEL_FILE = ['addons', 'sale_extra', 'models', 'sale_order.py'];
const MODEL_SOURCE = `from odoo import fields, models


class SaleOrder(models.Model):
    _inherit = 'sale.order'

    delivery_window = fields.Char(help='Shown to the driver')
`;

/** The workbench page's own assets: VS Code's versioned static paths (`stable-<commit>/static/…`). */
const assetsOf = (html: string): string[] => [...html.matchAll(/(?:src|href)="(stable-[0-9a-f]+\/static\/[^"]+)"/g)].map((match) => match[1]!);

describe('the code editor (code-server) of an instance, behind web at /instances/{slug}/code/proxy/', function () {
  this.timeout(180_000);
  let platform: WebPlatform;
  let developer: WebSession;
  let sourceDir: string;

  before(async function () {
    const missing = codeEditorTool.available();
    if (missing) {
      console.warn(`      skipped: ${missing}`);
      return this.skip();
    }
    platform = await startWebPlatform();
    developer = await platform.signedIn('developer');
    const ok = async (answer: Promise<{ status: number }>, what: string) => expect((await answer).status, what).to.be.oneOf([200, 303]);
    await ok(developer.post('/projects', { name: 'Acme Norte' }), 'project');
    await ok(developer.post('/projects/acme-norte/repo', { git_repo: 'git@github.com:acme/erp-norte.git' }), 'repository');
    await ok(developer.post('/instances', { name: 'Main', project: 'acme-norte', erp_version: '18.0', branch: 'main' }), 'instance');
    await jobPlayer(platform).run(SLUG, standinFacts('http://127.0.0.1:18081'));
    // The executor's checkout, as fetch_code leaves it.
    sourceDir = join(platform.config.FORJA_DATA_DIR, 'instances', SLUG, 'src');
    mkdirSync(join(sourceDir, ...MODEL_FILE.slice(0, -1)), { recursive: true });
    writeFileSync(join(sourceDir, ...MODEL_FILE), MODEL_SOURCE);
  });
  after(() => platform?.stop());

  it('answers a developer with the workbench on the instance source, and its static assets, on its own tools host', async () => {
    const code = await openTool(developer, `${BASE}/`);
    expect(code.origin).to.match(/^http:\/\/code-acme-norte-main\.tools\.localhost:\d+$/);
    const entry = await code.get(`${BASE}/`);
    expect(entry.status, 'code-server sends the browser to its folder').to.equal(302);
    expect(entry.location).to.equal(`./?folder=${sourceDir}`);
    const page = await code.get(`${BASE}/?folder=${encodeURIComponent(sourceDir)}`);
    expect(page.status).to.equal(200);
    expect(page.body).to.include('vscode-workbench-web-configuration');
    const assets = assetsOf(page.body);
    expect(assets.some((asset) => asset.endsWith('/workbench.js')), assets.join(', ')).to.equal(true);
    for (const asset of assets) {
      const res = await code.get(`${BASE}/${asset}`);
      expect(res.status, asset).to.equal(200);
    }
    expect(String(page.headers['set-cookie'] ?? ''), 'the secret never reaches the browser').not.to.include('code-server-session');
  });

  it('passes the workbench\'s WebSocket (its connection to the server) through to code-server', async () => {
    const code = await openTool(developer, `${BASE}/`);
    const url = `${code.origin}${BASE}/?reconnectionToken=forja-test&reconnection=false&skipWebSocketFrames=false`;
    for (const origin of [platform.web, code.origin.replace('//code-', '//editor-'), 'http://acme-norte-main.localhost:8083', undefined]) {
      const refused = await toolUpgrade(url, { cookie: code.cookie, ...(origin ? { origin } : {}) });
      refused.socket?.destroy();
      expect(refused.status, `from ${String(origin)}`).to.equal(403);
    }
    const ws = await toolUpgrade(url, { cookie: code.cookie, origin: code.origin });
    expect(ws.status).to.equal(101);
    ws.socket!.destroy();
  });

  it('refuses a viewer (403), also its WebSocket, and sends an anonymous visitor to sign in', async () => {
    const viewer = await platform.signedIn('viewer');
    expect((await viewer.get(`${BASE}/`)).status).to.equal(403);
    const code = await openTool(developer, `${BASE}/`);
    const ws = await toolUpgrade(`${code.origin}${BASE}/?reconnectionToken=x`, { cookie: `${SESSION_COOKIE}=${viewer.cookie}`, origin: code.origin });
    expect(ws.status, 'web\'s cookie is no key to the tool').to.equal(401);
    expect((await upgradeRequest(`${platform.web}${BASE}/?reconnectionToken=x`, { cookie: `${SESSION_COOKIE}=${developer.cookie}`, origin: platform.web })).status, 'none on web').to.equal(404);
    const anonymous = await platform.visitor().get(`${BASE}/`);
    expect(anonymous.status).to.equal(303);
    expect(anonymous.location).to.equal(`/login?next=${encodeURIComponent(`${BASE}/`)}`);
  });

  it('shows a file of the instance source in Chromium, with every request kept on web\'s and the tool host\'s origins', async () => {
    const browser = await launchChromium();
    try {
      const context = await newContext(browser);
      context.setDefaultTimeout(60_000);
      const page = await context.newPage();
      await signInWithForm(page, platform.web, USERS.developer, PASSWORD);
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(platform.web) && !/^http:\/\/code-acme-norte-main\.tools\.localhost:\d+\//.test(url) && !/^(data|blob):/.test(url)) elsewhere.push(url);
      });
      const violations: string[] = [];
      page.on('console', (message) => void (/Content Security Policy/i.test(message.text()) && violations.push(`${message.text()} (${message.location().url})`)));
      // From the instance's page, as a developer opens it: a page of its own, not an htmx swap.
      await page.goto(`${platform.web}/instances/${SLUG}`);
      // A third-party tool opens in a tab of its own (it has no way back to Forja): follow its link here.
      const toolLink = page.getByRole('link', { name: 'Code editor (new tab)' });
      expect(await toolLink.getAttribute('target')).to.equal('_blank');
      await page.goto(new URL((await toolLink.getAttribute('href')) ?? '', page.url()).href);
      await page.waitForURL((url) => url.hostname === 'code-acme-norte-main.tools.localhost' && `${url.pathname}${url.search}` === `${BASE}/?folder=${encodeURIComponent(sourceDir).replace(/%2F/g, '/')}`);
      // The explorer shows addons/sale_extra/models as one compact row: one click opens all three.
      await page.getByRole('treeitem', { name: /^addons/ }).first().click();
      await page.getByRole('treeitem', { name: /^sale_order\.py/ }).click();
      await page.locator('.monaco-editor .view-lines').getByText("_inherit = 'sale.order'").waitFor();
      // Syntax colouring runs in a worker with WebAssembly: a token of its own colour shows it works.
      await page.locator('.monaco-editor .view-lines span[class^="mtk"]:not(.mtk1)').first().waitFor();
      await screenshot(page, 'code-editor');
      // Search in files runs ripgrep on the server: Debian's rg, given to VS Code at install.
      await page.getByRole('tab', { name: /^Search/ }).click();
      await page.keyboard.type('delivery_window');
      await page.locator('.search-view .results').getByText('delivery_window').first().waitFor();
      expect(elsewhere, 'requests outside web').to.deep.equal([]);
      expect(violations, 'content security policy violations').to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });
});
