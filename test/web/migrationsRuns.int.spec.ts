import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { getMigration } from '#projections/erpMigrations/migrationDetail.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { instancePlan, instanceStream } from '#services/instances/domain/instance.ts';
import { openEventStream } from '#test/support/sseClient.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';
import { migrationPlayer } from './migrationsPlayer.ts';

const PULL_URL = 'https://files.example.com/acme.dump';
const said = (html: string) => /&amp;said=([\w-]{10})"/.exec(html)?.[1] ?? '';

describe('web: migration runs — live steps, gate decisions, failures, artifacts and logs', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let viewer: WebSession;
  let developer: WebSession;
  let player: ReturnType<typeof migrationPlayer>;
  const slug = 'norte-prod';

  const statusOf = async (of: string) => (await getMigration(platform.infra.db.withSchema('read_model'), of))?.status;
  const positionOf = async (of: string, step: string) => (await player.stepIds(of)).indexOf(step);

  before(async () => {
    platform = await startWebPlatform();
    player = migrationPlayer(platform);
    [viewer, developer] = await Promise.all([platform.signedIn('viewer'), platform.signedIn('developer')]);
    // Production: the community recipe asks for a decision before the upgrade.
    expect((await developer.post('/migrations/new', { name: 'Norte Prod', origin: '16.0', destination: '17.0', purpose: 'production', pull_url: PULL_URL })).location).to.equal(`/migrations/${slug}`);
    expect((await developer.post(`/migrations/${slug}/run`, {})).status).to.equal(303);
  });
  after(() => platform?.stop());

  it('follows a running step: the sentence, the polled block, news only when it changed, a reload when the status did', async () => {
    const [first] = await player.stepIds(slug);
    await player.start(slug, first!);
    const page = await viewer.get(`/migrations/${slug}`);
    expect(page.html).to.include('<span class="badge status-provisioning" id="migration-badge">running</span>');
    expect(textOf(page.html)).to.match(/Run 1 is running step 1 of \d+: fetch\./);
    expect(page.html).to.match(/<div id="run-steps" hx-get="\/migrations\/norte-prod\?shown=running&amp;said=[\w-]{10}" hx-trigger="every 2s" hx-swap="outerHTML">/);
    expect(page.html).to.match(/<tr class="step step-running" id="step-fetch">/);
    const current = said(page.html);
    const poll = (query: string) => viewer.get(`/migrations/${slug}?${query}`, { 'hx-request': 'true' });

    const quiet = await poll(`shown=running&said=${current}`);
    expect(quiet.status).to.equal(200);
    expect(quiet.html.trimStart()).to.match(/^<div id="run-steps"/);
    expect(quiet.html, 'nothing new to read out').to.not.include('hx-swap-oob');
    expect(quiet.headers.get('hx-refresh')).to.equal(null);

    await player.complete(slug, first!);
    const news = await poll(`shown=running&said=${current}`);
    expect(news.html).to.include('<span id="run-progress" hx-swap-oob="innerHTML">Run 1 is running.</span>');
    expect(news.headers.get('hx-refresh')).to.equal(null);
    const changed = await poll(`shown=queued&said=${current}`);
    expect(changed.headers.get('hx-refresh'), 'the status the page shows is gone').to.equal('true');
  });

  it('lists the files steps stored and streams them, with the step’s warnings on the run’s page', async () => {
    const backupAt = await positionOf(slug, 'backup_origin');
    const content = Buffer.from('PGDMP fake backup of norte\n');
    const key = `migrations/${slug}/runs/1/backup_origin.dump`;
    player.writeBlob(key, content);
    const artifact = { kind: 'backup', name: 'backup_origin.dump', key, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') };
    await player.runUntil(slug, 'stop_crons', { backup_origin: { artifact }, demo_data: { warnings: ['demo data is installed in sale'] } });
    const page = await viewer.get(`/migrations/${slug}`);
    const id = 1000 + backupAt;
    expect(page.html).to.include(`<a href="/migrations/${slug}/artifacts/${id}/download" hx-boost="false" download>backup_origin.dump</a>`);
    expect(textOf(page.html)).to.include(`${content.length} bytes`).and.include(artifact.sha256.slice(0, 12));

    const download = await fetch(`${platform.web}/migrations/${slug}/artifacts/${id}/download`, { headers: { cookie: `forja.sid=${viewer.cookie}` } });
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-disposition')).to.equal(`attachment; filename=${slug}-run-1-backup_origin.dump`);
    expect(download.headers.get('content-type')).to.equal('application/octet-stream');
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).to.equal(true);
    expect((await viewer.get(`/migrations/${slug}/artifacts/${id + 1}/download`)).status, 'a step without a file').to.equal(404);

    const run = await viewer.get(`/migrations/${slug}/runs/1`);
    expect(run.status).to.equal(200);
    expect(run.html).to.include('<h1>Run 1 of Norte Prod</h1>');
    expect(textOf(run.html)).to.include('Warning: demo data is installed in sale');
    expect(run.html).to.match(/<tr class="step step-completed" id="step-backup_origin">/);
  });

  it('says a stored file that went away is gone', async () => {
    await player.start(slug, 'stop_crons');
    await player.complete(slug, 'stop_crons', { artifact: { kind: 'dump', name: 'gone.dump', key: `migrations/${slug}/runs/1/gone.dump`, bytes: 3, sha256: 'abc' } });
    const id = 1000 + (await positionOf(slug, 'stop_crons'));
    const res = await viewer.get(`/migrations/${slug}/artifacts/${id}/download`);
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-disposition')).to.equal(null);
    expect(textOf(res.html)).to.include('That file is no longer stored.');
  });

  it('asks for the decision at a gate, refuses a form without one, and records the approval', async () => {
    await player.runUntil(slug, 'approve');
    await player.start(slug, 'approve');
    await player.reachGate(slug, 'approve', 'Check the coverage and the origin backup, then approve the upgrade');
    const page = await developer.get(`/migrations/${slug}`);
    expect(await statusOf(slug)).to.equal('waiting');
    expect(page.html, 'a decision is a person’s: no polling').to.not.include('hx-trigger="every 2s"');
    expect(page.html).to.include(`<form method="post" action="/migrations/${slug}/runs/1/resume" class="gate-form" aria-labelledby="gate-title">`);
    expect(textOf(page.html)).to.include('Run 1 waits for a decision at approve: Check the coverage and the origin backup, then approve the upgrade');
    expect((await viewer.get(`/migrations/${slug}`)).html, 'viewers see no decision form').to.not.include('gate-form');

    const none = await developer.post(`/migrations/${slug}/runs/1/resume`, { note: 'looks fine' });
    expect(none.status).to.equal(422);
    expect(none.html).to.include('<small id="decision-error" class="field-error">choose approve or reject</small>');
    expect(none.html).to.include('looks fine</textarea>');
    expect((await developer.post(`/migrations/${slug}/runs/7/resume`, { decision: 'approve' })).status).to.equal(404);

    const approved = await developer.post(`/migrations/${slug}/runs/1/resume`, { decision: 'approve', note: 'coverage checked' });
    expect(approved.status).to.equal(303);
    expect(textOf((await developer.get(`/migrations/${slug}`)).html)).to.include('Approved: run 1 goes on.');
    expect(await statusOf(slug)).to.be.oneOf(['running', 'queued']);
  });

  it('shows a failed run: the step’s error on its page; running again resumes from it, reusing what was done', async () => {
    await player.start(slug, 'upgrade');
    await player.fail(slug, 'upgrade', 'OpenUpgrade: column res_partner.x does not exist');
    const run = await viewer.get(`/migrations/${slug}/runs/1`);
    expect(run.html).to.include('<span class="badge status-failed">failed</span>');
    expect(run.html).to.include('<p class="step-error">OpenUpgrade: column res_partner.x does not exist</p>');
    expect(run.html).to.include('<dt>Checkpoint</dt><dd><code>upgrade</code></dd>');
    expect(run.html).to.not.include('hx-trigger="every 2s"');
    const page = await developer.get(`/migrations/${slug}`);
    expect(page.html).to.include('<span class="badge status-failed" id="migration-badge">errored</span>');
    expect(textOf(page.html)).to.include('Run 1 failed: upgrade: OpenUpgrade: column res_partner.x does not exist');

    expect((await developer.post(`/migrations/${slug}/run`, {})).status).to.equal(303);
    expect(textOf((await developer.get(`/migrations/${slug}`)).html)).to.include('Run 2 is queued');
    const second = await viewer.get(`/migrations/${slug}/runs/2`);
    expect(textOf(second.html)).to.include('resume, reusing what run 1 finished');
    expect(second.html).to.match(/<tr class="step step-completed" id="step-backup_origin">\s*<td>\d+<\/td>\s*<td>backup_origin <span class="muted small">backup<\/span><\/td>\s*<td><span class="step-state">reused<\/span>/);
    const runs = (await viewer.get(`/migrations/${slug}`)).html;
    expect([...runs.matchAll(/<td><a href="\/migrations\/norte-prod\/runs\/(\d)">/g)].map((match) => match[1])).to.deep.equal(['2', '1']);
  });

  it('offers run-anyway after a failed pre-flight, asking why', async () => {
    const other = 'sur-prod';
    await developer.post('/migrations/new', { name: 'Sur Prod', origin: '16.0', destination: '17.0', pull_url: PULL_URL });
    await developer.post(`/migrations/${other}/run`, {});
    await player.runUntil(other, 'source_version');
    await player.start(other, 'source_version');
    await player.fail(other, 'source_version', 'expected 16.0.*, found 15.0.1.3');
    const page = await developer.get(`/migrations/${other}`);
    expect(page.html).to.include(`<form method="post" action="/migrations/${other}/run-anyway" class="run-anyway">`);
    const empty = await developer.post(`/migrations/${other}/run-anyway`, { reason: ' ' });
    expect(empty.status).to.equal(422);
    expect(empty.html).to.include('<small id="reason-error" class="field-error">say why the failed pre-flight may be overridden</small>');
    const ran = await developer.post(`/migrations/${other}/run-anyway`, { reason: 'the customer’s 15.0 modules were upgraded by hand' });
    expect(ran.status).to.equal(303);
    expect(textOf((await developer.get(`/migrations/${other}`)).html)).to.include('Run 2 is queued without the pre-flight checks; your reason is recorded.');
    expect(textOf((await viewer.get(`/migrations/${other}/runs/2`)).html)).to.include('Pre-flight overridden the customer’s 15.0 modules were upgraded by hand');
  });

  it('shows a run’s log: the viewer page, its event stream and the download', async () => {
    const log = join(platform.config.FORJA_DATA_DIR, 'migrations', slug, 'runs', '1', 'run.log');
    player.writeBlob(`migrations/${slug}/runs/1/run.log`, 'fetch: 1024 bytes\n');
    appendFileSync(log, 'restore: done\n');
    const page = await viewer.get(`/migrations/${slug}/runs/1/logs`);
    expect(page.status).to.equal(200);
    expect(page.html).to.include(`data-log-stream="/migrations/${slug}/runs/1/logs/stream"`);
    expect(page.html).to.include('<h1>Log of run 1</h1>');

    const events = await openEventStream(platform.web, viewer, `/migrations/${slug}/runs/1/logs/stream`);
    try {
      expect(events.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
      const lines = await events.until((event) => event.data === 'restore: done');
      expect(lines.filter((event) => event.event === 'message').map(({ id, data }) => ({ id, data }))).to.deep.equal([
        { id: '18', data: 'fetch: 1024 bytes' },
        { id: '32', data: 'restore: done' },
      ]);
    } finally {
      events.close();
    }

    const download = await viewer.get(`/migrations/${slug}/runs/1/logs/download`);
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-disposition')).to.equal(`attachment; filename=${slug}-run-1.log`);
    expect(download.html).to.equal('fetch: 1024 bytes\nrestore: done\n');
    const nothingYet = await viewer.get(`/migrations/${slug}/runs/2/logs/download`);
    expect([nothingYet.status, nothingYet.html]).to.deep.equal([200, '']);
    for (const path of ['runs/9/logs', 'runs/9/logs/download', 'runs/0/logs', 'runs/9/logs/stream']) expect((await viewer.get(`/migrations/${slug}/${path}`)).status, path).to.equal(404);
    expect((await viewer.get(`/migrations/nope/runs/1/logs`)).status).to.equal(404);
  });

  it('sends visitors to sign in, and 404s a run that does not exist', async () => {
    const visitor = platform.visitor();
    const res = await visitor.get(`/migrations/${slug}/runs/1`);
    expect(res.status).to.equal(303);
    expect(res.location).to.equal(`/login?next=${encodeURIComponent(`/migrations/${slug}/runs/1`)}`);
    expect((await viewer.get(`/migrations/${slug}/runs/3`)).status).to.equal(404);
    expect(textOf((await viewer.get(`/migrations/${slug}/runs/3`)).html)).to.include('Migration norte-prod has no run 3. Stopping a migration drops its runs.');
  });
  it('links the working instance a run started from the migration page and from that run’s page', async () => {
    const instance = 'norte-prod-r1';
    const data = {
      slug: instance, name: 'r1', project: 'norte', stage: 'staging' as const, erpVersion: '17.0', edition: 'community' as const, modules: [], gitRepo: 'git@github.com:norte/erp.git', branch: 'main',
      source: { kind: 'migration' as const, migration: slug, run: 1, database: 'forja_mig_norte_prod', filestoreDir: null }, jobId: 'w1', plan: instancePlan('provision', false),
    };
    const metadata = { correlationId: 'test', causationId: 'test', actor: 'system', at: new Date().toISOString() };
    const appended = await platform.infra.store.appendToStream(instanceStream(instance), [{ type: 'InstanceRequested', data, metadata }], { expectedVersion: 0 });
    await waitForPosition(platform.infra.db.withSchema('read_model'), 'instance_detail', appended.lastGlobalPosition!);
    const link = `<a href="/instances/${instance}" class="working-instance">${instance}</a>`;
    expect((await viewer.get(`/migrations/${slug}`)).html).to.include(link);
    expect((await viewer.get(`/migrations/${slug}/runs/1`)).html).to.include(link);
    expect((await viewer.get(`/migrations/${slug}/runs/2`)).html).to.not.include(link);
  });

});
