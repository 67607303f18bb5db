import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startErpRouterProcess } from '#services/control-plane/erpRouter/erpRouterProcess.ts';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { instanceRecorder, tinyErp } from '#test/support/erpStandins.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { waitUntil } from '#test/support/wait.ts';

/** A port free right now: web must know the router's port before the router listens. */
async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('ERP router in Chromium (*.localhost resolved by the browser itself)', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let port: number;
  const erps: Server[] = [];
  const instances = () => instanceRecorder(platform.infra.store, platform.infra.db.withSchema('read_model'));

  before(async () => {
    port = await unusedPort();
    platform = await startWebPlatform({}, [startErpRouterProcess], { FORJA_ERP_ROUTER_PORT: String(port) });
    browser = await launchChromium();
    context = await newContext(browser);
    page = await context.newPage();
    await signInWithForm(page, platform.web, USERS.developer, PASSWORD);
  });
  after(async () => {
    await browser?.close();
    for (const server of erps) server.close();
    await platform?.stop();
  });

  it('links the instance page to http://<slug>.localhost:<port>/, which shows that ERP', async () => {
    const erp = await tinyErp('shop');
    erps.push(erp.server);
    await instances().running('acme-shop', erp.url);
    await page.goto(`${platform.web}/instances/acme-shop`);
    const link = page.locator('#instance-status .erp-address a');
    const address = `http://acme-shop.localhost:${port}/`;
    expect(await link.getAttribute('href')).to.equal(address);
    expect(await link.innerText()).to.equal(address);
    await screenshot(page, 'erp-router-instance-page');

    const erpPage = await context.newPage();
    await erpPage.goto(address);
    await erpPage.getByRole('heading', { name: 'ERP shop' }).waitFor();
    expect(await erpPage.locator('#seen').innerText()).to.equal(`GET / host=acme-shop.localhost:${port} body=`);
    await screenshot(erpPage, 'erp-router-erp-page');
    await erpPage.close();
  });

  it('holds a sleeping instance on the waking page, which reloads itself into the ERP once it runs', async () => {
    const erp = await tinyErp('sleepy');
    erps.push(erp.server);
    const history = await instances().running('acme-nap', erp.url);
    await instances().sleeping(history);
    await page.goto(`${platform.web}/instances/acme-nap`);
    expect(await page.locator('#instance-status .erp-address').innerText()).to.contain('(opening it wakes the instance)');

    const erpPage = await context.newPage();
    const response = await erpPage.goto(`http://acme-nap.localhost:${port}/`);
    expect(response?.status()).to.equal(503);
    await erpPage.getByRole('heading', { name: 'acme-nap is waking up' }).waitFor();
    await screenshot(erpPage, 'erp-router-waking');

    let start: RecordedEvent | undefined;
    await waitUntil(async () => {
      start = (await platform.infra.store.readStream('instance-acme-nap')).events.find((event) => event.type === 'InstanceActionRequested' && (event.data as { action: string }).action === 'start');
      return start !== undefined;
    }, 'the router to ask for a start');
    await instances().started(history, (start!.data as { jobId: string }).jobId, erp.url);
    // No reload by the test: the page's own refresh brings the ERP.
    await erpPage.getByRole('heading', { name: 'ERP sleepy' }).waitFor({ timeout: 10_000 });
    await screenshot(erpPage, 'erp-router-woken');
    await erpPage.close();
  });
});
