import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { caughtMailKeys, instanceLogKey } from '#shared/blobs/blobKeys.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import type { WebPlatform } from '#test/support/webPlatform.ts';
import { waitForPosition } from '#projections/runner/waitForPosition.ts';
import { instancePlan, instanceStream } from '#services/instances/domain/instance.ts';
import { migrationPlayer } from './migrationsPlayer.ts';

/** The caught message the instance mail pages show. */
export const A11Y_MAIL_ID = '20261123T100000000Z-0a0b0c0d';
const CAUGHT_MAIL = [
  'From: Acme Norte <erp@acme.example>',
  'To: cliente@example.com',
  'Subject: Factura FA-A 0001-00000042',
  'Date: Mon, 23 Nov 2026 10:00:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Estimado cliente, adjuntamos su factura.</p>',
  '--b1',
  'Content-Type: application/pdf; name="FA-A-0001-00000042.pdf"',
  'Content-Disposition: attachment; filename="FA-A-0001-00000042.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  'JVBERi0xLjQK',
  '--b1--',
  '',
].join('\r\n');

/** A traceback's or a logged query's line: one word the browser cannot break. */
const LONG_LINE = `2026-11-23 10:02:12 ERROR odoo.modules.loading: ${'x'.repeat(300)}`;

/**
 * The records the pages of `a11yPages.ts` show, at their fullest: a project with a repository, an
 * SSH key and instances; a running, a failed and a destroyed instance with logs; a production migration
 * waiting at its gate with an artifact and a warning, a failed one and a draft; a second recipe
 * version, so the resync page has a difference to show.
 */
export async function buildA11yFixture(platform: WebPlatform): Promise<void> {
  const developer = await platform.signedIn('developer');
  const admin = await platform.signedIn('admin');
  const ok = async (answer: Promise<{ status: number }>, what: string) => expect((await answer).status, what).to.be.oneOf([200, 303]);

  for (const name of ['Acme Norte', 'Cabaña Los Álamos', 'Ferretería Central']) await ok(developer.post('/projects', { name }), name);
  await ok(developer.post('/projects/acme-norte/repo', { git_repo: 'git@github.com:acme/erp-norte-with-a-long-repository-name.git' }), 'repository');
  await ok(admin.post('/ssh-keys', { mode: 'generate', name: 'deploy-acme-norte', key_type: 'ed25519' }), 'SSH key');
  await ok(developer.post('/projects/acme-norte/ssh-keys/add', { key_id: '1' }), 'project key');

  const instances = jobPlayer(platform);
  for (const name of ['Main', 'Broken', 'Gone']) await ok(developer.post('/instances', { name, project: 'acme-norte', erp_version: '18.0', branch: 'main' }), name);
  await instances.run('acme-norte-main', standinFacts('http://127.0.0.1:18081'));
  await instances.run('acme-norte-broken', {}, 'install_modules');
  await instances.start('acme-norte-broken', 'install_modules');
  await instances.fail('acme-norte-broken', 'install_modules', 'module stock_extra not found', ['2026-11-23 10:02:11 INFO loading 41 modules', LONG_LINE]);
  await instances.run('acme-norte-gone', standinFacts('http://127.0.0.1:18083'));
  await ok(developer.post('/instances/acme-norte-gone/action', { action: 'destroy' }), 'destroy');
  await instances.run('acme-norte-gone');
  writeBlob(platform, instanceLogKey('acme-norte-main', 'erp'), `2026-11-23 10:00:00 INFO odoo: ERP stand-in ready\n${LONG_LINE}\n`);
  const mail = caughtMailKeys('acme-norte-main', A11Y_MAIL_ID);
  writeBlob(platform, mail.raw, CAUGHT_MAIL);
  writeBlob(platform, mail.summary, JSON.stringify({ id: A11Y_MAIL_ID, receivedAt: '2026-11-23T10:00:00.000Z', from: 'Acme Norte <erp@acme.example>', to: ['cliente@example.com'], subject: 'Factura FA-A 0001-00000042', size: CAUGHT_MAIL.length, attachments: 1 }));

  const migrations = migrationPlayer(platform);
  const pull = 'https://files.example.com/acme.dump';
  await ok(developer.post('/migrations/new', { name: 'Norte Prod', origin: '16.0', destination: '17.0', purpose: 'production', pull_url: pull }), 'Norte Prod');
  await ok(developer.post('/migrations/new', { name: 'Sur Test', origin: '16.0', destination: '17.0', pull_url: pull }), 'Sur Test');
  await ok(developer.post('/migrations/new', { name: 'Oeste Draft', origin: '17.0', destination: '18.0', pull_url: pull }), 'Oeste Draft');
  for (const slug of ['norte-prod', 'sur-test']) await ok(developer.post(`/migrations/${slug}/run`, {}), `run ${slug}`);
  const backup = Buffer.from('PGDMP a backup of norte\n');
  const key = 'migrations/norte-prod/runs/1/backup_origin.dump';
  writeBlob(platform, key, backup);
  const artifact = { kind: 'backup', name: 'backup_origin.dump', key, bytes: backup.length, sha256: createHash('sha256').update(backup).digest('hex') };
  await migrations.runUntil('norte-prod', 'approve', { backup_origin: { artifact }, demo_data: { warnings: ['demo data is installed in sale'] } });
  await migrations.start('norte-prod', 'approve');
  await migrations.reachGate('norte-prod', 'approve', 'Check the coverage and the origin backup, then approve the upgrade');
  writeBlob(platform, 'migrations/norte-prod/runs/1/run.log', `fetch: 1024 bytes\n${LONG_LINE}\n`);
  // The working instance run 1 started (as the executor's instance step asks for it), linked from the migration and run pages.
  const working = {
    slug: 'norte-prod-r1', name: 'Norte Prod run 1', project: 'acme-norte', stage: 'staging' as const, erpVersion: '17.0', edition: 'community' as const, modules: [], gitRepo: 'git@github.com:acme/erp-norte-with-a-long-repository-name.git', branch: 'main',
    source: { kind: 'migration' as const, migration: 'norte-prod', run: 1, database: 'forja_mig_norte_prod', filestoreDir: null }, jobId: 'a11y-working', plan: instancePlan('provision', false),
  };
  const appended = await platform.infra.store.appendToStream(instanceStream(working.slug), [{ type: 'InstanceRequested', data: working, metadata: { correlationId: 'a11y', causationId: 'a11y', actor: 'system', at: new Date().toISOString() } }], { expectedVersion: 0 });
  await waitForPosition(platform.infra.db.withSchema('read_model'), 'instance_detail', appended.lastGlobalPosition!);
  const [first] = await migrations.stepIds('sur-test');
  await migrations.start('sur-test', first!);
  await migrations.fail('sur-test', first!, `could not download ${pull}: 404 Not Found`);

  // The recipe's next version: migrations took version 1, so resync has a step table and a diff.
  const recipe = await admin.get('/admin/recipes/community/16.0-17.0/edit');
  const yaml = /<textarea[^>]*>([\s\S]*?)<\/textarea>/.exec(recipe.html)?.[1] ?? '';
  const text = yaml.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  expect(text, 'the recipe’s YAML').to.include('timeout: 2h');
  await ok(admin.post('/admin/recipes/save', { key: 'community.16.0-17.0', yaml: text.replace('timeout: 2h', 'timeout: 4h'), action: 'save' }), 'recipe version 2');
}

function writeBlob(platform: WebPlatform, key: string, content: string | Buffer): void {
  const file = join(platform.config.FORJA_DATA_DIR, key);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}
