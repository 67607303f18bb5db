import { spawnSync } from 'node:child_process';
import { cpSync, createReadStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { projectorStarter } from '#projections/projectorProcess.ts';
import { executorStarter } from '#services/executor/executorProcess.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';
import { testCluster } from '#test/support/postgres.ts';
import { apiCaller, stopRunningInstances } from '#test/support/migrationHarness.ts';
import { runDir } from '#test/support/runDir.ts';
import { startTestSmtpServer, type TestSmtpServer } from '#test/support/smtpServer.ts';
import { waitUntil } from '#test/support/wait.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
const STANDIN_UPGRADES = fileURLToPath(new URL('../../services/erp-standin/upgrades/', import.meta.url));
const PUBLIC_URL = 'https://forja.example.com';
const NOTIFY_TO = ['ops@example.com', 'cfo@example.com'];

/**
 * The acceptance: a real 16.0 → 17.0 migration run by the executor with the ERP stand-in
 * (as in migrationRun.int.spec.ts) mails its gate, its failure and its success to every notify-to
 * address, through a real SMTP server on 127.0.0.1.
 */
describe('notices of a real migration run (process runtime, ERP stand-in, SMTP on 127.0.0.1)', function () {
  this.timeout(240_000);
  let platform: TestPlatform;
  let smtp: TestSmtpServer;
  let files: Server;
  let dumpUrl: string;
  /** sale's 17.0 post-migration script: the test makes it fail, then pass. */
  let saleScript: string;

  before(async () => {
    const cluster = await testCluster();
    const dir = runDir('run-notices');
    const upgrades = join(dir, 'upgrades');
    cpSync(STANDIN_UPGRADES, upgrades, { recursive: true });
    mkdirSync(join(upgrades, '17.0', 'sale', '17.0.1.0'), { recursive: true });
    saleScript = join(upgrades, '17.0', 'sale', '17.0.1.0', 'post-migration.sql');
    const source = `notices_${Date.now()}`;
    const parsed = new URL(cluster.url);
    const connection = ['--db_host', '127.0.0.1', '--db_port', parsed.port, '--db_user', 'postgres', '--db_password', decodeURIComponent(parsed.password)];
    const installed = spawnSync(STANDIN, ['-d', source, '-i', 'sale', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '16.0' } });
    expect(installed.status, installed.stderr).to.equal(0);
    const dumpFile = join(dir, 'customer.dump');
    const dumped = spawnSync('pg_dump', ['-Fc', '-f', dumpFile, cluster.urlFor(source)], { encoding: 'utf8' });
    expect(dumped.status, dumped.stderr).to.equal(0);
    files = createServer((req, res) => {
      if (req.url !== '/customer.dump') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': String(statSync(dumpFile).size) });
      createReadStream(dumpFile).pipe(res);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    dumpUrl = `http://127.0.0.1:${(files.address() as { port: number }).port}/customer.dump`;
    smtp = await startTestSmtpServer();
    const executor = executorStarter({ FORJA_RUNTIME: 'process', FORJA_ERP_DATABASE_URL: cluster.urlFor('postgres'), FORJA_HEALTH_TIMEOUT_S: 60, FORJA_UPGRADE_PATH: `${upgrades}/{version}` });
    const projector = projectorStarter({ smtpUrl: smtp.url, publicUrl: PUBLIC_URL, from: 'Forja <forja@example.com>', pollMs: 200 });
    platform = await startTestPlatform([executor], { FORJA_PULL_ALLOW_HOSTS: '127.0.0.1' }, { projector });
    await platform.createUser('dev@example.com', 'developer');
  });
  after(async () => {
    // ERP servers outlive the executor by design: stop the working instance the run started.
    if (platform) await stopRunningInstances(call);
    await platform?.stop();
    await smtp?.close();
    files?.close();
  });

  const call = apiCaller(() => platform);
  const runStatus = async (slug: string, number: number) => ((await (await call(`/api/v1/migrations/${slug}/runs/${number}`)).json()) as { status: string }).status;

  it('mails the gate, the failure and the success to every notify-to address, each with its subject and the link to the run', async () => {
    writeFileSync(saleScript, 'select 1 / 0;\n');
    const created = await call('/api/v1/migrations', {
      method: 'POST',
      json: { name: 'Notified upgrade', origin: '16.0', destination: '17.0', purpose: 'production', notify_to: NOTIFY_TO, pull_url: dumpUrl },
    });
    expect(created.status, await created.clone().text()).to.equal(201);
    const { slug } = (await created.json()) as { slug: string };
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);

    await waitUntil(() => smtp.received.length === 1, 'the gate notice', 90_000);
    expect(await runStatus(slug, 1)).to.equal('waiting');
    const approved = await call(`/api/v1/migrations/${slug}/runs/1/resume`, { method: 'POST', json: { decision: 'approve', note: 'backup checked' } });
    expect(approved.status, await approved.clone().text()).to.equal(200);

    await waitUntil(() => smtp.received.length === 2, 'the failure notice', 90_000);
    expect(await runStatus(slug, 1)).to.equal('failed');
    writeFileSync(saleScript, 'select 1;\n');
    expect((await call(`/api/v1/migrations/${slug}/run`, { method: 'POST' })).status).to.equal(201);

    await waitUntil(() => smtp.received.length === 3, 'the success notice', 120_000);
    expect(await runStatus(slug, 2)).to.equal('succeeded');

    expect(smtp.received.map((mail) => mail.headers['subject'])).to.deep.equal([
      '[Forja] Notified upgrade: run 1 waits at gate approve',
      '[Forja] Notified upgrade: run 1 failed at step upgrade',
      '[Forja] Notified upgrade: run 2 succeeded',
    ]);
    for (const [i, mail] of smtp.received.entries()) {
      expect(mail.rcptTo, `recipients of mail ${i + 1}`).to.deep.equal(NOTIFY_TO);
      expect(mail.headers['to']).to.equal(NOTIFY_TO.join(', '));
      expect(mail.text).to.include(`${PUBLIC_URL}/migrations/${slug}/runs/${i < 2 ? 1 : 2}`);
    }
    expect(smtp.received[0]!.text).to.include('Check the coverage and the origin backup, then approve the upgrade');
    // The failure's error, the ERP's first ERROR line and its message first, then the command; and the failed step's last log lines.
    expect(smtp.received[1]!.text)
      .to.match(/Error: {3}ERROR \S+ odoo\.sql_db: bad query: \S+post-migration\.sql ERROR: division by zero \(odoo-bin .* exited with code 1\)/)
      .and.match(/post-migration .* failed: division by zero/);
  });
});
