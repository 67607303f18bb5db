import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { instanceStream, type InstanceSource } from '#services/instances/domain/instance.ts';
import { basic } from '#test/support/platform.ts';
import { startWebPlatform, USERS, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';
import { migrationPlayer } from '#test/web/migrationsPlayer.ts';
import { workingInstanceSlug } from '#shared/instanceDatabase/reservedNames.ts';

const PULL_URL = 'https://files.example.com/acme.dump';

interface Refusal {
  detail: Array<{ loc: string[]; msg: string }>;
}

/**
 * Instances from a migration's backup or dump (`from_backup`), without an executor: the artifacts
 * are played into the runs as the executor records them, their files written where it writes them.
 */
describe('instances from a migration artifact: API and form (no executor)', function () {
  this.timeout(90_000);
  let platform: WebPlatform;
  let player: ReturnType<typeof migrationPlayer>;
  let developer: WebSession;
  /** Artifact ids of `sur` run 1, by kind. */
  const ids: Record<string, number> = {};

  const call = (path: string, init: RequestInit & { json?: unknown; as?: string } = {}) =>
    fetch(`${platform.controlPlane}${path}`, {
      ...init,
      headers: { authorization: basic(init.as ?? USERS.developer), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  const create = (json: Record<string, unknown>) => call('/api/v1/instances', { method: 'POST', json });
  const refusal = async (res: Response, status = 422) => {
    expect(res.status, await res.clone().text()).to.equal(status);
    return ((await res.json()) as Refusal).detail[0]!;
  };

  /** A migration run through its dump, with the files its artifact steps store (the backup knows its version; the dump, as before it was recorded, does not). */
  async function migrated(name: string): Promise<string> {
    const created = await call('/api/v1/migrations', { method: 'POST', json: { name, origin: '16.0', destination: '17.0', pull_url: PULL_URL } });
    const { slug } = (await created.json()) as { slug: string };
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    const artifact = (step: string, kind: string, extension: string, extra: object = {}) => {
      const content = Buffer.from(`${kind} of ${slug}\n`);
      const key = `migrations/${slug}/runs/1/${step}${extension}`;
      player.writeBlob(key, content);
      return { artifact: { kind, name: `${step}${extension}`, key, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex'), ...extra } };
    };
    await player.runUntil(slug, 'preview', {
      backup_origin: artifact('backup_origin', 'backup', '.dump', { erpVersion: '16.0' }),
      dump_result: artifact('dump_result', 'dump', '.dump'),
      filestore_result: artifact('filestore_result', 'filestore', '.tar.gz'),
    });
    await player.start(slug, 'preview');
    await player.complete(slug, 'preview', { instance: workingInstanceSlug(slug, 1) });
    await player.start(slug, 'report');
    await player.complete(slug, 'report', artifact('report', 'report', '.txt'));
    return slug;
  }

  before(async () => {
    platform = await startWebPlatform();
    player = migrationPlayer(platform);
    developer = await platform.signedIn('developer');
    await migrated('Sur');
    const { artifacts } = (await (await call('/api/v1/migrations/sur/runs/1')).json()) as { artifacts: Array<{ id: number; kind: string }> };
    for (const { id, kind } of artifacts) ids[kind] = id;
    expect(Object.keys(ids)).to.have.members(['backup', 'dump', 'filestore', 'report']);
  });
  after(() => platform?.stop());

  it('creates an instance from a dump: its source names the artifact and the run’s filestore, the edition is the migration’s', async () => {
    const res = await create({ name: 'From the dump', project: 'Acme', erp_version: '17.0', from_backup: ids['dump'], from_migration: 'sur' });
    expect(res.status, await res.clone().text()).to.equal(201);
    const body = (await res.json()) as { slug: string; erp_version: string; edition: string; status: string };
    expect(body).to.include({ erp_version: '17.0', edition: 'community', status: 'queued' });
    const { events } = await platform.infra.store.readStream<{ type: string; data: { source: InstanceSource } }>(instanceStream(body.slug));
    expect(events[0]!.data.source).to.deep.equal({
      kind: 'artifact',
      artifactId: ids['dump'],
      migration: 'sur',
      run: 1,
      artifactKind: 'dump',
      blobKey: 'migrations/sur/runs/1/dump_result.dump',
      filestoreKey: 'migrations/sur/runs/1/filestore_result.tar.gz',
    });
  });

  it('finds the artifact without from_migration when one migration alone has that id', async () => {
    const res = await create({ name: 'Backup alone', project: 'Acme', erp_version: '16.0', from_backup: ids['backup'] });
    expect(res.status, await res.clone().text()).to.equal(201);
  });

  it('refuses, naming from_backup: an unknown id, a filestore archive, a report, an unknown or deleted migration', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ from_backup: 999_999 }, /there is no migration artifact 999999/],
      [{ from_backup: ids['dump']! + 500, from_migration: 'sur' }, /migration sur has no artifact/],
      [{ from_backup: ids['filestore'], from_migration: 'sur' }, /is a filestore archive, not a database/],
      [{ from_backup: ids['report'], from_migration: 'sur' }, /is a report, not a database/],
      [{ from_backup: ids['dump'], from_migration: 'nowhere' }, /there is no migration nowhere/],
    ];
    for (const [source, message] of cases) {
      const detail = await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', ...source }));
      expect(detail.loc, JSON.stringify(source)).to.deep.equal(['body', 'from_backup']);
      expect(detail.msg).to.match(message);
    }
    const draft = (await (await call('/api/v1/migrations', { method: 'POST', json: { name: 'Gone', origin: '16.0', destination: '17.0', pull_url: PULL_URL } })).json()) as { slug: string };
    expect((await call(`/api/v1/migrations/${draft.slug}`, { method: 'DELETE', json: { confirm_name: 'Gone' } })).status).to.equal(204);
    const deleted = await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', from_backup: 1001, from_migration: draft.slug }));
    expect(deleted).to.deep.include({ loc: ['body', 'from_backup'], msg: `migration ${draft.slug} was deleted, and its backups and dumps with it` });
  });

  it('refuses an artifact whose file is gone, an id two migrations share, another ERP version, and two sources at once', async () => {
    await migrated('Oeste');
    const shared = await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', from_backup: ids['dump'] }));
    expect(shared).to.deep.include({ loc: ['body', 'from_backup'], msg: `migrations oeste, sur each have an artifact ${ids['dump']}: say which with from_migration` });
    rmSync(join(platform.config.FORJA_DATA_DIR, 'migrations/oeste/runs/1/dump_result.dump'));
    const gone = await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', from_backup: ids['dump'], from_migration: 'oeste' }));
    expect(gone).to.deep.include({ loc: ['body', 'from_backup'], msg: `the file of artifact ${ids['dump']} of migration oeste (dump_result.dump) is no longer stored` });
    const version = await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', from_backup: ids['backup'], from_migration: 'sur' }));
    expect(version).to.deep.include({ loc: ['body', 'erp_version'], msg: 'the database in backup_origin.dump (run 1 of sur) is on 16.0: the instance must run 16.0' });
    const both = await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', from_backup: ids['dump'], from_migration: 'sur', clone_from: 'acme-from-the-dump' }));
    expect(both).to.deep.include({ loc: ['body', 'clone_from'], msg: 'choose one source for the database, not clone_from and from_backup' });
    const lone = await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', from_migration: 'sur' }));
    expect(lone.loc).to.deep.equal(['body', 'from_migration']);
    expect((await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', from_backup: 'x' }))).loc).to.deep.equal(['body', 'from_backup']);
    expect((await refusal(await create({ name: 'Refused', project: 'Acme', erp_version: '17.0', from_backup: 0 }))).loc).to.deep.equal(['body', 'from_backup']);
  });

  it('preloads the form from the artifact: its database’s version (recorded, or the route’s for older artifacts), the edition, a name, where it comes from', async () => {
    const dump = await developer.get(`/instances/new?from_backup=${ids['dump']}&from_migration=sur`);
    expect(dump.status).to.equal(200);
    expect(dump.html).to.match(/<option value="17\.0" selected>/);
    expect(dump.html).to.include('value="Sur run 1 dump"');
    expect(dump.html).to.include(`<input type="hidden" name="from_backup" value="${ids['dump']}">`);
    const text = textOf(dump.html);
    expect(text).to.match(/Database from the dump of run 1 of migration Sur ?, with the run’s filestore archive; its ERP is 17\.0/);
    expect(text).to.include('dump_result.dump').and.include(createHash('sha256').update('dump of sur\n').digest('hex'));
    const backup = await developer.get(`/instances/new?from_backup=${ids['backup']}&from_migration=sur`);
    expect(backup.html).to.match(/<option value="16\.0" selected>/);
    const report = await developer.get(`/instances/new?from_backup=${ids['report']}&from_migration=sur`);
    expect(textOf(report.html)).to.include('report.txt is a report, not a database');
    const typo = await developer.get('/instances/new?from_backup=12x');
    expect(textOf(typo.html)).to.include('not an artifact number');
  });

  it('keeps from_backup through a refused form, saying why at the source', async () => {
    const form = { name: 'Wrong version', project: 'Acme', stage: 'development', erp_version: '18.0', edition: 'community', modules: '', git_repo: '', branch: 'main', from_backup: String(ids['dump']), from_migration: 'sur' };
    const refused = await developer.post('/instances', form);
    expect(refused.status).to.equal(422);
    expect(refused.headers.get('hx-push-url')).to.equal(`/instances/new?project=Acme&from_backup=${ids['dump']}&from_migration=sur`);
    expect(refused.html).to.include(`<input type="hidden" name="from_backup" value="${ids['dump']}">`);
    expect(textOf(refused.html)).to.include('is on 17.0: the instance must run 17.0');
    const typo = await developer.post('/instances', { ...form, erp_version: '17.0', from_backup: '12x' });
    expect(typo.status).to.equal(422);
    expect(textOf(typo.html)).to.include('not an artifact number');
    const accepted = await developer.post('/instances', { ...form, erp_version: '17.0' });
    expect(accepted.status).to.equal(303);
    expect(accepted.location).to.match(/^\/instances\/acme-wrong-version/);
  });

  it('links each backup and dump to a new instance on the run page and the migration page, for developers only', async () => {
    const link = (id: number, kind: string) => `<a href="/instances/new?from_backup=${id}&amp;from_migration=sur" class="artifact-instance">From this ${kind}</a>`;
    for (const path of ['/migrations/sur/runs/1', '/migrations/sur']) {
      const page = await developer.get(path);
      expect(page.html, path).to.include(link(ids['backup']!, 'backup')).and.include(link(ids['dump']!, 'dump'));
      expect(page.html.match(/class="artifact-instance"/g), 'no link for the filestore archive and the report').to.have.length(2);
    }
    const viewer = await platform.signedIn('viewer');
    expect((await viewer.get('/migrations/sur/runs/1')).html).not.to.include('artifact-instance');
  });
});
