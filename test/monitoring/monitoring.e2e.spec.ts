import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { toolClient } from '#test/support/toolSession.ts';
import { readModelOf } from '#projections/readModel.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { PROMETHEUS_BIN, startMonitoring } from '#services/monitoring/monitoringProcess.ts';
import { silentLogger } from '#shared/log.ts';
import { monitoringAuthorization, monitoringSecret } from '#shared/monitoring/monitoringSecret.ts';
import type { ForjaProcess } from '#shared/platform/process.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { axeViolations, describeViolations } from '#test/support/axe.ts';
import { launchChromium, newContext, screenshot, signInWithForm } from '#test/support/browser.ts';
import { freePort } from '#test/support/freePort.ts';
import { htmlProblems } from '#test/support/htmlValidation.ts';
import { instanceClient } from '#test/support/instances.ts';
import { PASSWORD } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

const SLUG = 'acme-main';

interface VectorAnswer {
  status: string;
  data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

/** A PromQL instant query on the monitoring tools host, as `session`'s user. */
async function query(session: WebSession, expr: string): Promise<VectorAnswer['data']['result']> {
  const res = await toolClient(session)(`/monitoring/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`);
  expect(res.status, `${expr}: ${res.text.slice(0, 200)}`).to.equal(200);
  const answer = JSON.parse(res.text) as VectorAnswer;
  expect(answer.status).to.equal('success');
  return answer.data.result;
}

/**
 * The real Prometheus (Debian's) started by Forja on free ports, scraping the control-plane, Forja's
 * instance exporter in front of a real ERP (the stand-in on the process runtime) and the
 * PostgreSQL exporter of its database server, every second; web proxies it at /monitoring and
 * draws the instance's graphs from its query API.
 */
describe('monitoring (Prometheus, started by Forja) behind web at /monitoring', function () {
  this.timeout(180_000);
  let platform: WebPlatform;
  let monitoring: ForjaProcess | undefined;
  let viewer: WebSession;
  let client: ReturnType<typeof instanceClient>;
  let monitoringPort: number;

  before(async function () {
    if (!existsSync(PROMETHEUS_BIN)) {
      console.log(`      skipped: ${PROMETHEUS_BIN} is missing (apt-get install prometheus prometheus-postgres-exporter; .ci/run installs them)`);
      this.skip();
    }
    monitoringPort = await freePort();
    const erpDatabases = (await testCluster()).urlFor('postgres');
    const executor = executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: erpDatabases, FORJA_HEALTH_TIMEOUT_S: 30, FORJA_SLEEP_AFTER: '24h' });
    platform = await startWebPlatform({}, [executor], { FORJA_MONITORING_PORT: String(monitoringPort) });
    client = instanceClient(platform.controlPlane, USERS.developer);
    await client.create({ name: 'Main', project: 'Acme', erp_version: '17.0' });
    await client.settled(SLUG, 'running');
    monitoring = await startMonitoring(
      {
        port: monitoringPort,
        scrapeIntervalS: 1,
        dataDir: platform.config.FORJA_DATA_DIR,
        forjaTargets: [
          { job: 'control-plane', address: new URL(platform.controlPlane).host },
          { job: 'web', address: new URL(platform.web).host },
        ],
        readModel: readModelOf(platform.infra.db),
        erpDatabaseAdminUrl: erpDatabases,
        masterKey: resolvePlatformSecrets(platform.config).masterKey,
      },
      silentLogger,
    );
    viewer = await platform.signedIn('viewer');
    // Scrapes over a quarter of a minute, so the 15-minute graphs (a point every 4 s) have lines and not only points.
    await waitUntil(async () => Number((await query(viewer, `count_over_time(forja_erp_up{instance_slug="${SLUG}"}[1m])`))[0]?.value[1] ?? 0) >= 15, 'fifteen scrapes of the instance', 60_000);
  });
  after(async () => {
    await monitoring?.stop();
    await client?.act(SLUG, 'stop').catch(() => undefined);
    await platform?.stop();
  });

  it('scrapes the control-plane, web, itself, the instance exporter and the PostgreSQL exporter', async () => {
    const up = await query(viewer, 'up');
    expect(Object.fromEntries(up.map((series) => [series.metric['job'], series.value[1]]))).to.deep.equal({ 'control-plane': '1', web: '1', prometheus: '1', 'forja-instances': '1', 'erp-postgres': '1' });
    // The control-plane's own series (its request histogram, its process) are in.
    expect(Number((await query(viewer, 'count({job="control-plane"})'))[0]?.value[1])).to.be.greaterThan(10);
    // Web's too: the pages and proxies it served.
    expect(Number((await query(viewer, 'count(forja_web_http_request_duration_seconds_count)'))[0]?.value[1])).to.be.greaterThan(0);
  });

  it('knows the running ERP: up, its response time, its memory and its database size', async () => {
    const value = async (expr: string) => Number((await query(viewer, expr))[0]?.value[1]);
    expect(await value(`forja_erp_up{instance_slug="${SLUG}"}`)).to.equal(1);
    expect(await value(`forja_erp_health_seconds{instance_slug="${SLUG}"}`)).to.be.within(0, 5);
    // A Node process (the stand-in) holds tens of MiB.
    expect(await value(`forja_erp_memory_bytes{instance_slug="${SLUG}"}`)).to.be.greaterThan(10 * 2 ** 20);
    expect(await value(`pg_database_size_bytes * on (datname) group_left (instance_slug) forja_erp_database_info{instance_slug="${SLUG}"}`)).to.be.greaterThan(2 ** 20);
  });

  it('answers no local process without the monitoring secret: Prometheus and both exporters (issue 24, finding 4)', async () => {
    const config = parse(readFileSync(join(platform.config.FORJA_DATA_DIR, 'monitoring', 'prometheus.yml'), 'utf8')) as { scrape_configs: Array<{ job_name: string; metrics_path: string; static_configs: Array<{ targets: string[] }> }> };
    const scraped = (job: string) => {
      const scrape = config.scrape_configs.find((candidate) => candidate.job_name === job);
      return `http://${scrape?.static_configs[0]?.targets[0]}${scrape?.metrics_path}`;
    };
    const urls = [`http://127.0.0.1:${monitoringPort}/monitoring/api/v1/query?query=up`, scraped('prometheus'), scraped('forja-instances'), scraped('erp-postgres')];
    const status = async (url: string, headers: Record<string, string>) => {
      const response = await fetch(url, { headers });
      await response.body?.cancel();
      return response.status;
    };
    const authorization = monitoringAuthorization(resolvePlatformSecrets(platform.config).masterKey);
    const wrong = `Basic ${Buffer.from('forja:guessed').toString('base64')}`;
    const answers = async (headers: Record<string, string>) => Promise.all(urls.map((url) => status(url, headers)));
    expect(await answers({}), 'without a login').to.deep.equal([401, 401, 401, 401]);
    expect(await answers({ authorization: wrong }), 'with a wrong password').to.deep.equal([401, 401, 401, 401]);
    expect(await answers({ authorization }), 'with the secret').to.deep.equal([200, 200, 200, 200]);
  });

  it('keeps only a bcrypt hash of the secret in the tools\' web configuration, 0600 in a 0700 folder', () => {
    const dir = join(platform.config.FORJA_DATA_DIR, 'monitoring');
    const file = join(dir, 'web-config.yml');
    const secret = monitoringSecret(resolvePlatformSecrets(platform.config).masterKey);
    const text = readFileSync(file, 'utf8');
    expect(text).to.not.include(secret);
    expect((parse(text) as { basic_auth_users: Record<string, string> }).basic_auth_users['forja']).to.match(/^\$2[aby]\$10\$/);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(statSync(join(dir, 'scrape-password')).mode & 0o777).to.equal(0o600);
    expect(statSync(dir).mode & 0o777).to.equal(0o700);
    expect(statSync(join(dir, 'data')).mode & 0o777).to.equal(0o700);
    // As root, Forja runs the tools as an account of their own, which alone may read them.
    if (process.getuid?.() === 0) for (const path of [dir, join(dir, 'data'), file, join(dir, 'scrape-password')]) expect(statSync(path).uid, path).to.not.equal(0);
  });

  it('sends an anonymous visitor to sign in instead of answering a query', async () => {
    const res = await platform.visitor().get('/monitoring/api/v1/query?query=up');
    expect(res.status).to.equal(303);
    expect(res.location).to.equal(`/login?next=${encodeURIComponent('/monitoring/api/v1/query?query=up')}`);
  });

  it('draws the instance page from the query API: four graphs with their latest value in words', async () => {
    const page = await viewer.get(`/instances/${SLUG}/monitoring?range=15m`);
    expect(page.status).to.equal(200);
    expect(page.html.match(/<svg [^>]*role="img"/g)).to.have.length(4);
    const text = textOf(page.html);
    expect(text).to.include('Latest').and.include('up: it answered its health check');
    expect(text).to.match(/\d+(\.\d)? MiB resident/);
    expect(text).to.not.include('No data in this period');
    expect(page.html).to.include('href="/monitoring/graph?g0.expr=forja_erp_up');
  });

  it('renders Prometheus\' own UI through the proxy in Chromium without a script or policy error, and the instance page', async () => {
    const browser = await launchChromium();
    try {
      const page = await (await newContext(browser)).newPage();
      await signInWithForm(page, platform.web, USERS.viewer, PASSWORD);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(`${error.message} (${page.url()})`));
      page.on('console', (message) => void (message.type() === 'error' && errors.push(`${message.text()} (${message.location().url})`)));
      const expr = `forja_erp_memory_bytes{instance_slug="${SLUG}"}`;
      await page.goto(`${platform.web}/monitoring/graph?${new URLSearchParams({ 'g0.expr': expr, 'g0.tab': '0', 'g0.range_input': '5m' }).toString()}`);
      // The classic UI draws its graph with d3 and rickshaw into #graph_0's chart.
      await page.locator('.graph_area svg, .graph svg, .rickshaw_graph svg').first().waitFor();
      expect(await page.title()).to.match(/Prometheus/);
      await screenshot(page, 'monitoring-prometheus');
      const served = await page.goto(`${platform.web}/instances/${SLUG}/monitoring?range=15m`);
      await page.getByRole('heading', { name: 'Monitoring of Main' }).waitFor();
      await screenshot(page, 'monitoring-instance');
      // The a11y walk sees this page without Prometheus; here it has its graphs.
      expect(describeViolations(await axeViolations(page))).to.deep.equal([]);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(describeViolations(await axeViolations(page))).to.deep.equal([]);
      await screenshot(page, 'monitoring-instance-phone');
      expect(await htmlProblems((await served?.text()) ?? '', 'instance monitoring with graphs')).to.deep.equal([]);
      // Debian's libjs-popper.js ships popper.min.js as an ES module, which the classic UI loads as a
      // plain script: it fails with or without the proxy (bookworm's packaging, not Forja's policy).
      const debianPopper = /^Unexpected token 'export' \(.*\/monitoring\/classic\/graph/;
      expect(errors.filter((error) => !debianPopper.test(error))).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });

  it('answers web\'s 502 page through the proxy and says so on the instance page once Prometheus is down', async () => {
    await monitoring!.stop();
    monitoring = undefined;
    const res = await toolClient(viewer)('/monitoring/graph');
    expect(res.status).to.equal(502);
    expect(textOf(res.text)).to.include('Monitoring (Prometheus) is not running or does not answer at the moment.');
    const page = await viewer.get(`/instances/${SLUG}/monitoring`);
    expect(page.status).to.equal(200);
    expect(textOf(page.html)).to.include('Prometheus does not answer at the moment, so there are no graphs to show.');
  });
});

describe('monitoring without Prometheus', () => {
  it('is off, saying why, when the binary is missing', async () => {
    const proc = await startMonitoring(
      { port: await freePort(), scrapeIntervalS: 15, dataDir: '/nonexistent', forjaTargets: [], readModel: undefined as never, erpDatabaseAdminUrl: undefined, masterKey: 'k', prometheusBin: '/nonexistent/prometheus' },
      silentLogger,
    );
    expect(proc.describe()).to.deep.equal(['off: /nonexistent/prometheus is missing (apt-get install prometheus prometheus-postgres-exporter)']);
    await proc.stop();
  });
});
