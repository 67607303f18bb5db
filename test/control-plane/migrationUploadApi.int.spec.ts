import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { uploadDir } from '#shared/platform/dataPaths.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { basic, startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

const validMigration = schemaValidator('api/MigrationOut.v1.json');
const DUMP = Buffer.from('PGDMP\x01\x0e\x00 a custom-format dump', 'latin1');
const ROUTE = { origin: '16.0', destination: '17.0' };

interface Refusal {
  detail: Array<{ loc: Array<string | number>; msg: string; type: string }> | string;
}

/** Creating a migration from files web stored: the internal endpoint takes them, the public API does not. */
describe('migration API: the input from an upload (issue 12)', function () {
  this.timeout(60_000);
  let platform: TestPlatform;
  let actor: string;

  before(async () => {
    platform = await startTestPlatform();
    await platform.createUser('dev@example.com', 'developer');
    const row = await platform.infra.db.withSchema('read_model').selectFrom('users').select('user_id').where('email', '=', 'dev@example.com').executeTakeFirstOrThrow();
    actor = row.user_id as string;
  });
  after(() => platform?.stop());

  /** Files as web's receiver leaves them: the dump, and the filestore archive when asked. */
  function stored(filestore = false) {
    const uploadId = randomUUID();
    const dir = uploadDir(platform.config.FORJA_DATA_DIR, uploadId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'dump'), DUMP);
    if (filestore) writeFileSync(join(dir, 'filestore'), 'PK\x05\x06');
    return { upload_id: uploadId, dump_name: 'acme.dump', filestore_name: filestore ? 'filestore.zip' : null, bytes: DUMP.length, sha256: createHash('sha256').update(DUMP).digest('hex') };
  }
  const internal = (body: unknown) =>
    fetch(`${platform.urls.controlPlane}/internal/migrations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${resolvePlatformSecrets(platform.config).serviceToken}`, 'content-type': 'application/json', 'x-forja-actor': actor },
      body: JSON.stringify(body),
    });
  const api = (body: unknown) =>
    fetch(`${platform.urls.controlPlane}/api/v1/migrations`, { method: 'POST', headers: { authorization: basic('dev@example.com'), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const refusal = async (res: Response) => {
    expect(res.status, 'a refusal').to.equal(422);
    const { detail } = (await res.json()) as Refusal;
    expect(detail).to.be.an('array');
    return (detail as Exclude<Refusal['detail'], string>).map((issue) => ({ field: issue.loc.slice(1).join('.'), msg: issue.msg }));
  };

  it('creates a draft from an upload through the internal endpoint, showing the dump’s name, size and sha256', async () => {
    const upload = stored(true);
    const res = await internal({ name: 'Uploaded Acme', ...ROUTE, upload });
    expect(res.status, await res.clone().text()).to.equal(201);
    const body = (await res.json()) as { slug: string; status: string; input: unknown; allowed_actions: string[] };
    expect(validMigration(body), describeErrors(validMigration)).to.equal(true);
    expect(body).to.deep.include({ slug: 'uploaded-acme', status: 'draft' });
    expect(body.input).to.deep.equal({ mode: 'upload', pull_url: null, dump_name: 'acme.dump', filestore_name: 'filestore.zip', bytes: DUMP.length, sha256: upload.sha256 });
    expect(body.allowed_actions).to.deep.equal(['run', 'delete']);
    const event = (await platform.infra.store.readStream('migration-uploaded-acme')).events[0]!;
    expect((event.data as { input: unknown }).input).to.deep.equal({ mode: 'upload', uploadId: upload.upload_id, dumpName: 'acme.dump', filestoreName: 'filestore.zip', bytes: DUMP.length, sha256: upload.sha256 });
  });

  it('refuses an upload through the public API with a 422 naming it, whatever else is sent', async () => {
    const upload = stored();
    expect(await refusal(await api({ name: 'Api Upload', ...ROUTE, upload }))).to.deep.equal([{ field: 'upload', msg: 'dumps are uploaded through the web form /migrations/new; the API takes pull_url' }]);
    expect(await refusal(await api({ name: 'Api Both', ...ROUTE, upload, pull_url: 'https://files.example.com/a.dump' }))).to.have.length(1);
    const list = (await (await fetch(`${platform.urls.controlPlane}/api/v1/migrations?search=Api`, { headers: { authorization: basic('dev@example.com') } })).json()) as unknown[];
    expect(list).to.deep.equal([]);
  });

  it('takes exactly one source: both, or neither, is a 422 naming the field', async () => {
    const both = await refusal(await internal({ name: 'Both', ...ROUTE, upload: stored(), pull_url: 'https://files.example.com/a.dump' }));
    expect(both).to.deep.equal([{ field: 'upload', msg: 'give either pull_url or an uploaded dump, not both' }]);
    const neither = await refusal(await internal({ name: 'Neither', ...ROUTE }));
    expect(neither).to.deep.equal([{ field: 'pull_url', msg: 'the API takes the database from pull_url; upload a dump through the web form instead' }]);
    expect(await refusal(await api({ name: 'Neither', ...ROUTE }))).to.deep.equal(neither);
  });

  it('refuses an upload whose files are not stored as it says, and malformed ones', async () => {
    const missing = { ...stored(), upload_id: randomUUID() };
    expect(await refusal(await internal({ name: 'Missing', ...ROUTE, upload: missing }))).to.deep.equal([{ field: 'upload.upload_id', msg: 'no uploaded dump is stored under this upload_id' }]);
    const wrongSize = { ...stored(), bytes: DUMP.length + 1 };
    expect(await refusal(await internal({ name: 'Size', ...ROUTE, upload: wrongSize }))).to.deep.equal([{ field: 'upload.bytes', msg: `the stored dump has ${DUMP.length} bytes, not ${DUMP.length + 1}` }]);
    const noFilestore = { ...stored(), filestore_name: 'fs.zip' };
    expect((await refusal(await internal({ name: 'No Filestore', ...ROUTE, upload: noFilestore })))[0]?.field).to.equal('upload.filestore_name');
    const unnamed = { ...stored(true), filestore_name: null };
    expect((await refusal(await internal({ name: 'Unnamed', ...ROUTE, upload: unnamed })))[0]?.field).to.equal('upload.filestore_name');
    for (const [field, value] of [
      ['upload_id', randomUUID().toUpperCase()],
      ['upload_id', `urn:uuid:${randomUUID()}`],
      ['dump_name', 'dir/acme.dump'],
      ['dump_name', 'acme\u0007.dump'],
      ['dump_name', ''],
      ['sha256', 'ABC'],
      ['bytes', 0],
    ] as const) {
      const issues = await refusal(await internal({ name: 'Malformed', ...ROUTE, upload: { ...stored(), [field]: value } }));
      expect(issues.map((issue) => issue.field), `${field}: ${JSON.stringify(value)}`).to.include(`upload.${field}`);
    }
    const list = (await (await fetch(`${platform.urls.controlPlane}/api/v1/migrations`, { headers: { authorization: basic('dev@example.com') } })).json()) as Array<{ slug: string }>;
    expect(list.map((migration) => migration.slug)).to.deep.equal(['uploaded-acme']);
  });

  it('documents upload as web-only in /openapi.json', async () => {
    const document = (await (await fetch(`${platform.urls.controlPlane}/openapi.json`)).json()) as { paths: Record<string, { post?: { summary?: string } }>; components: { schemas: Record<string, { required?: string[]; properties: Record<string, { description?: string }> }> } };
    const schema = document.components.schemas['MigrationCreate']!;
    expect(schema.required).to.not.include('pull_url');
    expect(schema.properties['upload']?.description).to.match(/^Web only/).and.match(/refuses it with 422/);
    expect(document.paths['/api/v1/migrations']?.post?.summary).to.match(/`upload` is for the web form and refused with 422/);
  });
});
