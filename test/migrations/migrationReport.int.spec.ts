import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, createReadStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { basic } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf } from '#test/support/webSession.ts';
import { inkOf, pdfToText, renderPage } from './report/pdfTools.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
const STANDIN_UPGRADES = fileURLToPath(new URL('../../services/erp-standin/upgrades/', import.meta.url));

interface ArtifactBody {
  id: number;
  run?: number;
  kind: string;
  name: string;
  bytes: number;
  sha256: string;
  download?: string;
}
interface RunBody {
  number: number;
  status: string;
  error: string | null;
  steps: Array<{ id: string; status: string }>;
  artifacts: ArtifactBody[];
}

/**
 * Reports of real runs: a production 16.0 → 17.0 migration on the process runtime and the ERP
 * stand-in waits at its gate, is approved with a note, fails its upgrade, and is resumed to
 * success; each run's PDF is read back with pdftotext and its first page rendered with pdftoppm.
 * FORJA_REPORT_SAMPLES=<dir> keeps the PDFs and PNGs for a person to look at.
 */
describe('migration run reports (PDF), end to end', function () {
  this.timeout(300_000);
  let platform: WebPlatform;
  let server: Server;
  let dumpUrl: string;
  let saleScript: string;
  let dir: string;
  let slug: string;

  before(async () => {
    const cluster = await testCluster();
    dir = runDir('migration-report');
    const upgrades = join(dir, 'upgrades');
    cpSync(STANDIN_UPGRADES, upgrades, { recursive: true });
    mkdirSync(join(upgrades, '17.0', 'sale', '17.0.1.0'), { recursive: true });
    saleScript = join(upgrades, '17.0', 'sale', '17.0.1.0', 'post-migration.sql');
    const source = `report_customer_${Date.now()}`;
    const parsed = new URL(cluster.url);
    const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    const installed = spawnSync(STANDIN, ['-d', source, '-i', 'sale,crm', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' } });
    expect(installed.status, installed.stderr).to.equal(0);
    const dumpFile = join(dir, 'customer.dump');
    const dumped = spawnSync('pg_dump', ['-Fc', '-f', dumpFile, cluster.urlFor(source)], { encoding: 'utf8' });
    expect(dumped.status, dumped.stderr).to.equal(0);
    server = createServer((req, res) => {
      if (req.url !== '/customer.dump') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': String(statSync(dumpFile).size) });
      createReadStream(dumpFile).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dumpUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/customer.dump`;
    const executor = executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 60, FORJA_UPGRADE_PATH: `${upgrades}/{version}` });
    platform = await startWebPlatform({}, [executor], { FORJA_PULL_ALLOW_HOSTS: '127.0.0.1' });
  });
  after(async () => {
    // ERP servers outlive the executor by design: stop the working instances the runs started.
    if (platform) {
      const running = (await (await call('/api/v1/instances?status_filter=running')).json()) as Array<{ slug: string }>;
      for (const instance of running) await call(`/api/v1/instances/${instance.slug}/action`, { method: 'POST', json: { action: 'stop' } });
      await waitUntil(async () => ((await (await call('/api/v1/instances?status_filter=running')).json()) as unknown[]).length === 0, 'the working instances to stop', 30_000).catch(() => undefined);
    }
    await platform?.stop();
    server?.close();
  });

  const call = (path: string, init: RequestInit & { json?: unknown; as?: string | null } = {}) =>
    fetch(`${platform.controlPlane}${path}`, {
      ...init,
      headers: { ...(init.as === null ? {} : { authorization: basic(init.as ?? USERS.developer) }), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  const runOf = async (number: number, of = slug) => (await (await call(`/api/v1/migrations/${of}/runs/${number}`)).json()) as RunBody;
  const untilStatus = (number: number, status: string, of = slug) =>
    waitUntil(async () => (await runOf(number, of)).status === status, `run ${number} of ${of} to be ${status}`, 120_000);
  const create = async (name: string) => {
    const created = await call('/api/v1/migrations', { method: 'POST', json: { name, origin: '16.0', destination: '17.0', purpose: 'production', pull_url: dumpUrl } });
    expect(created.status, await created.clone().text()).to.equal(201);
    return ((await created.json()) as { slug: string }).slug;
  };
  const download = async (path: string) => {
    const response = await call(path);
    expect(response.status, path).to.equal(200);
    return Buffer.from(await response.arrayBuffer());
  };
  /** Generates the run's report through the API, checks the artifact answered against the file downloaded, and returns its text. */
  const report = async (number: number, name: string) => {
    const generated = await call(`/api/v1/migrations/${slug}/runs/${number}/report`, { method: 'POST' });
    expect(generated.status, await generated.clone().text()).to.equal(201);
    const artifact = (await generated.json()) as ArtifactBody;
    expect(artifact).to.include({ run: number, kind: 'report' });
    expect(artifact.name).to.match(/^report-\d{8}T\d{6}Z-[0-9a-f]{6}\.pdf$/);
    expect(generated.headers.get('location')).to.equal(artifact.download).and.equal(`/api/v1/migrations/${slug}/artifacts/${artifact.id}`);
    const pdf = await download(artifact.download!);
    expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
    expect(pdf.length).to.equal(artifact.bytes);
    expect(createHash('sha256').update(pdf).digest('hex')).to.equal(artifact.sha256);
    keep(pdf, name);
    return { artifact, pdf, text: pdfToText(pdf, dir, name) };
  };
  const keep = (pdf: Buffer, name: string) => {
    const samples = process.env['FORJA_REPORT_SAMPLES'];
    if (!samples) return;
    mkdirSync(samples, { recursive: true });
    writeFileSync(join(samples, `${name}.pdf`), pdf);
    for (const page of [1, 2]) copyFileSync(renderPage(pdf, dir, name, page), join(samples, `${name}-page-${page}.png`));
  };

  it('reports a run that waited at its gate, was approved with a note and failed its upgrade: the failure with its log', async () => {
    writeFileSync(saleScript, 'select 1 / 0;\n');
    slug = await create('Acme Distribución S.A.');
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    await untilStatus(1, 'waiting');
    const approved = await call(`/api/v1/migrations/${slug}/runs/1/resume`, { method: 'POST', json: { decision: 'approve', note: 'origin backup checked with the customer' } });
    expect(approved.status, await approved.clone().text()).to.equal(200);
    await untilStatus(1, 'failed');
    const run = await runOf(1);
    const { artifact, text } = await report(1, 'run-1');
    expect(artifact.id, 'the first report of run 1 counts down from 1999').to.equal(1999);
    const migration = (await (await call(`/api/v1/migrations/${slug}`)).json()) as { recipe: { keys: string[]; sha256: string } };
    for (const expected of ['Acme Distribución S.A.', 'MIGRATION REPORT', '16.0 -> 17.0', 'community', 'openupgrade', 'production', 'Failed', 'New run from the recipe', migration.recipe.keys[0]!, migration.recipe.sha256, 'Page 1 of']) {
      expect(text, expected).to.include(expected);
    }
    expect(text).to.match(/Gate approve:\s+approved:\s+origin\s+backup\s+checked\s+with\s+the\s+customer/);
    expect(text).to.match(/dev@example\.com\s+Gate approve/);
    expect(text).to.match(/upgrade\s+attempt 1, \d{4}-\d\d-\d\d/);
    expect(text, 'the ERP log kept at the failure').to.include('The run log when it failed:').and.match(/division by zero/);
    for (const step of run.steps) expect(text, `step ${step.id}`).to.include(step.id);
    const backup = run.artifacts.find((file) => file.kind === 'backup')!;
    expect(text, 'the backup with its full sha256').to.include(backup.sha256).and.include(backup.name);
    expect((await runOf(1)).artifacts.map((file) => file.id)).to.include(1999);
  });

  it('reports the resumed run that succeeded: reused steps, every artifact with its sha256, the report step’s own PDF; page 1 renders', async () => {
    writeFileSync(saleScript, 'select 1;\n');
    const resumed = await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' });
    expect(((await resumed.json()) as { kind: string }).kind).to.equal('resume');
    await untilStatus(2, 'succeeded');
    const run = await runOf(2);
    const { artifact, pdf, text } = await report(2, 'run-2');
    expect(artifact.id).to.equal(2999);
    expect(text, 'the gate run 1 approved still stands').to.match(/Gate approve \(run 1\):\s+approved:\s+origin\s+backup/);
    expect(text).to.include('Succeeded').and.include('Resume of run 1: its finished steps reused').and.include('reused from run 1').and.include('No step failed in this run.');
    expect(run.artifacts.map((file) => file.kind)).to.include.members(['dump', 'filestore', 'report']);
    for (const file of run.artifacts.filter((candidate) => candidate.id !== artifact.id)) expect(text, file.name).to.include(file.sha256);
    // The recipe's own report step made the same kind of PDF while the run was going.
    const stepReport = run.artifacts.find((file) => file.name === 'report.pdf')!;
    const stepText = pdfToText(await download(`/api/v1/migrations/${slug}/artifacts/${stepReport.id}`), dir, 'step-report');
    expect(stepText).to.include('Acme Distribución S.A.').and.include('In progress').and.match(/running\s.*\s+\(this report\)/).and.include("the run's report step");
    const page = inkOf(renderPage(pdf, dir, 'run-2', 1));
    expect(page.width, 'A4 at 72 dpi').to.be.within(595, 596);
    expect(page.height).to.be.within(842, 843);
    expect(page.ink, 'page 1 has text on it, and is not a black box').to.be.within(0.005, 0.3);
    expect((await runOf(2)).artifacts.find((file) => file.id === 2999)).to.include({ kind: 'report', name: artifact.name, sha256: artifact.sha256 });
  });

  it('refuses what it cannot report: 401, 403 for a viewer, 404 for an unknown migration or run, 422 for a bad number or slug', async () => {
    const status = async (path: string, as?: string | null) => (await call(path, { method: 'POST', ...(as !== undefined ? { as } : {}) })).status;
    expect(await status(`/api/v1/migrations/${slug}/runs/1/report`, null)).to.equal(401);
    expect(await status(`/api/v1/migrations/${slug}/runs/1/report`, USERS.viewer)).to.equal(403);
    expect(await status('/api/v1/migrations/no-such-migration/runs/1/report')).to.equal(404);
    const unknownRun = await call(`/api/v1/migrations/${slug}/runs/9/report`, { method: 'POST' });
    expect(unknownRun.status).to.equal(404);
    expect(((await unknownRun.json()) as { detail: string }).detail).to.equal(`migration ${slug} has no run 9`);
    expect(await status(`/api/v1/migrations/${slug}/runs/x/report`)).to.equal(422);
    expect(await status(`/api/v1/migrations/${slug}/runs/0/report`)).to.equal(422);
    expect(await status('/api/v1/migrations/Bad_Slug/runs/1/report')).to.equal(422);
    expect((await runOf(1)).artifacts.filter((file) => file.kind === 'report').map((file) => file.id), 'no refusal registered anything').to.deep.equal([1999]);
  });

  it('reports a live run as in progress; once a stop drops the run, its report is a 404', async () => {
    const live = await create('Live report');
    expect((await call(`/api/v1/migrations/${live}/run`, { method: 'POST' })).status).to.equal(201);
    await untilStatus(1, 'waiting', live);
    const generated = await call(`/api/v1/migrations/${live}/runs/1/report`, { method: 'POST' });
    expect(generated.status).to.equal(201);
    const text = pdfToText(await download(((await generated.json()) as ArtifactBody).download!), dir, 'live');
    expect(text).to.include('Waiting at a gate (in progress)').and.include('This run is still in progress').and.include('not yet');
    expect((await call(`/api/v1/migrations/${live}/stop`, { method: 'POST' })).status).to.equal(200);
    expect((await call(`/api/v1/migrations/${live}/runs/1/report`, { method: 'POST' })).status).to.equal(404);
  });

  it('web: the run page’s button makes the report and comes back with a flash linking the download', async () => {
    const developer = await platform.signedIn('developer');
    const page = await developer.get(`/migrations/${slug}/runs/2`);
    expect(page.html).to.include(`action="/migrations/${slug}/runs/2/report"`).and.include('Generate PDF report');
    const posted = await developer.post(`/migrations/${slug}/runs/2/report`, {});
    expect(posted.status).to.equal(303);
    expect(posted.location).to.equal(`/migrations/${slug}/runs/2`);
    const back = await developer.get(posted.location!);
    expect(textOf(back.html)).to.match(/Report report-\S+\.pdf is ready \([\d.]+ KiB, sha256 [0-9a-f]{12}…\)\. Download the PDF/);
    const link = /href="(\/migrations\/[^"]+\/artifacts\/2998\/download)"/.exec(back.html)?.[1];
    expect(link, 'the flash links the new report (the second of run 2)').to.equal(`/migrations/${slug}/artifacts/2998/download`);
    const file = await developer.get(link!);
    expect(file.status).to.equal(200);
    expect(file.html.startsWith('%PDF-')).to.equal(true);
    expect(file.headers.get('content-disposition')).to.match(/^attachment; filename="?[^"]+-run-2-report-\S+\.pdf/);
  });

  it('web: a viewer gets no button and a 403; an unknown run is a 404; a POST without its CSRF token is refused', async () => {
    const viewer = await platform.signedIn('viewer');
    expect((await viewer.get(`/migrations/${slug}/runs/2`)).html).not.to.include('Generate PDF report');
    expect((await viewer.post(`/migrations/${slug}/runs/2/report`, {})).status).to.equal(403);
    const developer = await platform.signedIn('developer');
    const unknown = await developer.post(`/migrations/${slug}/runs/9/report`, {});
    expect(unknown.status).to.equal(404);
    expect(textOf(unknown.html)).to.include(`Migration ${slug} has no run 9.`);
    expect((await developer.post('/migrations/no-such-migration/runs/1/report', {})).status).to.equal(404);
    expect((await developer.post(`/migrations/${slug}/runs/2/report`, {}, { csrf: false })).status).to.equal(403);
    expect((await runOf(2)).artifacts.filter((file) => file.kind === 'report' && file.id > 2900).map((file) => file.id), 'only the reports asked for properly').to.deep.equal([2999, 2998]);
  });
});
