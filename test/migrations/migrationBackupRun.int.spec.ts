import { spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { apiCaller, stopRunningInstances } from '#test/support/migrationHarness.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { bsdtar } from '#test/executor/fixtures/databaseFixtures.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
/** The customer's attachments: their files are only in the backup's filestore/. */
const ATTACHMENTS: Record<string, string> = { '3f/3f0a11': 'invoice 2024-001', 'c2/c2b7e9': 'company logo' };

interface RunBody {
  status: string;
  error: string | null;
  steps: Array<{ id: string; status: string; error: string | null }>;
}

/**
 * A community 16.0 → 17.0 migration end to end from an ERP backup .zip (dump.sql, manifest.json,
 * filestore/, as the ERP's database manager makes one) served over http on 127.0.0.1: the
 * pre-flight filestore check passes on the files the restore unpacked.
 */
describe('a migration run from an ERP backup .zip, end to end (process runtime, ERP stand-in)', function () {
  this.timeout(240_000);
  let platform: TestPlatform;
  let server: Server;
  let backupUrl: string;

  before(async () => {
    const cluster = await testCluster();
    const dir = runDir('migration-backup-run');
    const source = `backup_${Date.now()}`;
    const parsed = new URL(cluster.url);
    // `=`: a generated password may start with '-', which a separate argument would make an option.
    const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', `--db_password=${decodeURIComponent(parsed.password)}`];
    const installed = spawnSync(STANDIN, ['-d', source, '-i', 'sale', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' } });
    expect(installed.status, installed.stderr).to.equal(0);
    const client = new pg.Client(cluster.urlFor(source));
    await client.connect();
    for (const [fname, text] of Object.entries(ATTACHMENTS)) await client.query('insert into ir_attachment (name, store_fname) values ($1, $2)', [text, fname]);
    await client.end();
    // What the ERP's dump_db writes: pg_dump --no-owner as plain SQL, the manifest, the filestore.
    const backup = join(dir, 'backup');
    mkdirSync(backup);
    const dumped = spawnSync('pg_dump', ['--no-owner', '-f', join(backup, 'dump.sql'), cluster.urlFor(source)], { encoding: 'utf8' });
    expect(dumped.status, dumped.stderr).to.equal(0);
    writeFileSync(join(backup, 'manifest.json'), JSON.stringify({ odoo_dump: '1', db_name: source, version: '16.0', version_info: [16, 0, 0, 'final', 0, ''], major_version: '16.0', pg_version: '15.0', modules: { base: '16.0.1.3', sale: '16.0.1.0' } }));
    for (const [fname, text] of Object.entries(ATTACHMENTS)) {
      mkdirSync(join(backup, 'filestore', fname.slice(0, 2)), { recursive: true });
      writeFileSync(join(backup, 'filestore', fname), text);
    }
    const zip = join(dir, 'backup.zip');
    bsdtar(['-c', '--format', 'zip', '-f', zip, '-C', backup, 'dump.sql', 'manifest.json', 'filestore']);
    server = createServer((req, res) => {
      if (req.url !== '/acme_2024-06-01.zip') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': String(statSync(zip).size), 'content-type': 'application/zip' });
      createReadStream(zip).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    backupUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/acme_2024-06-01.zip`;
    platform = await startTestPlatform([executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 60 })], {
      FORJA_PULL_ALLOW_HOSTS: '127.0.0.1',
    });
    await platform.createUser('dev@example.com', 'developer');
  });
  after(async () => {
    // ERP servers outlive the executor by design: stop the working instance the run started.
    if (platform) await stopRunningInstances(call);
    await platform?.stop();
    server?.close();
  });

  const call = apiCaller(() => platform);

  it('reaches migrated: dump.sql restored, filestore/ unpacked as the working filestore and found whole by the filestore check', async () => {
    const created = await call('/api/v1/migrations', { method: 'POST', json: { name: 'Acme from a backup', origin: '16.0', destination: '17.0', pull_url: backupUrl } });
    expect(created.status, await created.clone().text()).to.equal(201);
    const { slug } = (await created.json()) as { slug: string };
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);
    let run: RunBody | undefined;
    await waitUntil(
      async () => {
        run = (await (await call(`/api/v1/migrations/${slug}/runs/1`)).json()) as RunBody;
        if (run.status === 'failed') throw new Error(`the run failed: ${run.error}; ${JSON.stringify(run.steps.filter((step) => step.error))}`);
        return run.status === 'succeeded';
      },
      'the run to succeed',
      200_000,
    );
    const statusOf = (id: string) => run!.steps.find((step) => step.id === id)?.status;
    expect([statusOf('fetch'), statusOf('restore'), statusOf('filestore'), statusOf('upgrade')]).to.deep.equal(['completed', 'completed', 'completed', 'completed']);
    const migration = (await (await call(`/api/v1/migrations/${slug}`)).json()) as { status: string; working_database: string };
    expect(migration.status).to.equal('migrated');
    const root = join(platform.config.FORJA_DATA_DIR, 'migrations', slug);
    const filestore = join(root, 'work', 'filestore', migration.working_database);
    for (const [fname, text] of Object.entries(ATTACHMENTS)) expect(readFileSync(join(filestore, fname), 'utf8'), fname).to.equal(text);
    const log = readFileSync(join(root, 'runs', '1', 'run.log'), 'utf8');
    expect(log).to.match(/the input is an ERP backup \.zip: dump\.sql, manifest\.json, filestore\/ \(2 file\(s\)\); manifest: ERP 16\.0, database backup_\d+, PostgreSQL 15\.0, 2 installed module\(s\)/);
    expect(log).to.include(`working filestore ${filestore} rebuilt: 2 file(s) (2 from the backup's filestore/)`);
    expect(log).to.include(`filestore filestore: all 2 attachment file(s) present under ${filestore}`);
    const client = new pg.Client((await testCluster()).urlFor(migration.working_database));
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; latest_version: string }>("select name, latest_version from ir_module_module where state = 'installed'");
      expect(rows.filter((row) => !row.latest_version.startsWith('17.0.')), 'every installed module at 17.0').to.deep.equal([]);
    } finally {
      await client.end();
    }
  });
});
