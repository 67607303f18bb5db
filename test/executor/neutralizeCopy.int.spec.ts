import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { erpDatabases } from '#services/executor/database/erpDatabases.ts';
import { STEPS } from '#services/executor/jobs/steps.ts';
import type { StepEnvironment } from '#services/executor/jobs/stepEnvironment.ts';
import { ProcessRuntime } from '#services/executor/runtime/process/processRuntime.ts';
import type { Runtime } from '#services/executor/runtime/runtime.ts';
import type { LiveInstance } from '#services/instances/domain/instance.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { removeTenantAccount } from '#shared/local/tenantAccount.ts';
import { instanceDir, instanceLogFile } from '#shared/platform/dataPaths.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { onTeardown } from '#test/support/teardown.ts';
import { memoryLog, sql } from './fixtures/databaseFixtures.ts';

const STANDIN = fileURLToPath(new URL('../../services/erp-standin/odoo-bin', import.meta.url));
const credentials = (database: string) => instanceCredentials('test master key', database);

/** An ERP without `neutralize` (before 16.0), or one whose neutralize fails; it runs nothing else here. */
const FAKE_ERP = (stderr: string) => `#!/bin/sh
if [ "$1" = neutralize ]; then echo "${stderr}" >&2; exit 1; fi
exit 0
`;

/**
 * The database step neutralizes a copy that is not production with the ERP's own `odoo-bin
 * neutralize` on 16.0+ (here the stand-in, which imitates it), then Forja's own part (the mail
 * catcher); before 16.0, or when the ERP has no such command or it fails, with Forja's SQL, the
 * reason recorded in the job's facts. Production copies are left as they are.
 */
describe('executor: the database step neutralizes a copy with the ERP\'s neutralize on 16.0+', function () {
  this.timeout(90_000);
  let adminUrl: string;
  let cluster: Awaited<ReturnType<typeof testCluster>>;
  let root: string;
  let sourceSlug: string;

  before(async () => {
    cluster = await testCluster();
    adminUrl = cluster.urlFor('postgres');
    root = runDir('neutralize-copy');
    // The production instance a copy is made of: web and mail installed by the stand-in, one scheduled action, one mail server.
    sourceSlug = `prod-${randomBytes(3).toString('hex')}`;
    const source = databaseName(sourceSlug);
    await erpDatabases({ adminUrl, log: memoryLog().stream, credentials }).recreate(source);
    const connection = ['--db_host', '127.0.0.1', '--db_port', new URL(cluster.url).port, '--db_user', credentials(source).user, '--db_password', credentials(source).password];
    const init = spawnSync(STANDIN, ['-d', databaseName(sourceSlug), '-i', 'web,mail', '--stop-after-init', ...connection], { encoding: 'utf8', env: { ...process.env, FORJA_STANDIN_VERSION: '17.0' } });
    expect(init.status, init.stderr).to.equal(0);
    await sql(adminUrl, databaseName(sourceSlug), `insert into ir_cron (name) values ('send invoices'); insert into ir_mail_server (name, smtp_host) values ('production', 'smtp.example.com')`);
  });

  async function runDatabaseStep(options: { erpVersion: string; stage?: LiveInstance['stage']; runtime?: Runtime }) {
    const slug = `copy-${randomBytes(3).toString('hex')}`;
    onTeardown(async () => removeTenantAccount('instance', slug));
    const database = databaseName(slug);
    const log = memoryLog();
    const lines: string[] = [];
    const instance = { slug, name: slug, project: 'acme', stage: options.stage ?? 'development', erpVersion: options.erpVersion, edition: 'community', modules: [], gitRepo: null, branch: 'main', source: { kind: 'clone', from: sourceSlug }, facts: {} } as unknown as LiveInstance;
    const env = {
      instance,
      jobId: 'job',
      runtime: options.runtime ?? new ProcessRuntime({ dataDir: root }),
      databases: () => erpDatabases({ adminUrl, log: log.stream, credentials, mailCatcher: { host: '127.0.0.1', port: 2525 }, mailboxLogin: (name) => ({ user: `box-${name}`, pass: 'secret' }) }),
      filestore: { copy: async () => undefined, extract: async () => undefined },
      dataDir: root,
      spec: {
        slug,
        erpVersion: options.erpVersion,
        edition: 'community',
        database,
        db: { host: '127.0.0.1', port: Number(new URL(cluster.url).port), ...credentials(database) },
        sourceDir: null,
        addonsPath: [],
        dataDir: instanceDir(root, slug),
        logFile: instanceLogFile(root, slug, 'erp'),
        root,
        tenant: { kind: 'instance', slug },
      },
      dbLog: async (line: string) => void lines.push(line),
      erpLog: async () => undefined,
      signal: new AbortController().signal,
    } as unknown as StepEnvironment;
    const facts = await STEPS.database!(env);
    const read = async <Row extends object>(text: string) => sql<Row>(adminUrl, database, text);
    return { facts, lines, read, log };
  }

  const state = async (read: <Row extends object>(text: string) => Promise<Row[]>) => ({
    flag: (await read<{ value: string }>(`select value from ir_config_parameter where key = 'database.is_neutralized'`))[0]?.value,
    banner: (await read<{ active: boolean }>(`select active from ir_ui_view where key = 'web.neutralize_banner'`))[0]?.active,
    crons: (await read<{ active: boolean }>('select active from ir_cron')).map((row) => row.active),
    servers: await read<{ name: string; active: boolean; smtp_host: string; smtp_user: string | null }>('select name, active, smtp_host, smtp_user from ir_mail_server order by id'),
  });

  it('on 17.0 runs the ERP\'s neutralize (flag, banner view, crons, mail servers), then points its placeholder server at the mail catcher', async () => {
    const { facts, read, log } = await runDatabaseStep({ erpVersion: '17.0' });
    expect(log.text(), 'only Forja\'s own step after the ERP\'s').to.match(/neutralized database forja_copy_\w+: 1 step\(s\) applied/);
    expect(facts.neutralization).to.match(/^ERP neutralize \(16\.0\+\): every installed module's data\/neutralize\.sql; then Forja's own: placeholder outgoing mail server/);
    const now = await state(read);
    expect(now).to.deep.include({ flag: 'true', banner: true, crons: [false] });
    expect(now.servers).to.have.length(2);
    expect(now.servers[0]).to.include({ name: 'production', active: false });
    expect(now.servers[1]).to.deep.include({ name: 'neutralization - disable emails', active: true, smtp_host: '127.0.0.1' });
    expect(now.servers[1]!.smtp_user).to.match(/^box-copy-/);
  });

  it('on 19.0 too, whose neutralize takes only -c and -d: the connection comes from the configuration file', async () => {
    const { facts, read } = await runDatabaseStep({ erpVersion: '19.0' });
    expect(facts.neutralization).to.match(/^ERP neutralize \(16\.0\+\)/);
    expect(await state(read)).to.deep.include({ flag: 'true', banner: true, crons: [false] });
  });

  it('before 16.0 uses Forja\'s SQL, saying why, and leaves the banner view alone (only the ERP knows it)', async () => {
    const { facts, read } = await runDatabaseStep({ erpVersion: '15.0' });
    expect(facts.neutralization).to.match(/^Forja's SQL \(fallback: ERP 15\.0 has no neutralize command \(16\.0\+\)\): scheduled actions/);
    expect(await state(read)).to.deep.include({ flag: 'true', banner: false, crons: [false] });
  });

  it('falls back to Forja\'s SQL when the ERP has no neutralize command ("Unknown command")', async () => {
    const command = join(root, 'odoo-without-neutralize');
    writeFileSync(command, FAKE_ERP("Unknown command 'neutralize'"), { mode: 0o755 });
    const { facts, lines, read } = await runDatabaseStep({ erpVersion: '17.0', runtime: new ProcessRuntime({ dataDir: root, command }) });
    expect(facts.neutralization).to.match(/^Forja's SQL \(fallback: the ERP has no neutralize command\): /);
    expect(lines.join('\n')).to.include("the ERP's neutralize did not neutralize");
    expect(await state(read)).to.deep.include({ flag: 'true', crons: [false] });
  });

  it('falls back to Forja\'s SQL when the ERP\'s neutralize fails, with its last words', async () => {
    const command = join(root, 'odoo-failing-neutralize');
    writeFileSync(command, FAKE_ERP('CRITICAL An error occurred during the neutralization. THE DATABASE IS NOT NEUTRALIZED!'), { mode: 0o755 });
    const { facts, read } = await runDatabaseStep({ erpVersion: '17.0', runtime: new ProcessRuntime({ dataDir: root, command }) });
    expect(facts.neutralization).to.match(/^Forja's SQL \(fallback: the ERP's neutralize failed: .*exited with code 1 \(CRITICAL An error occurred during the neutralization\. THE DATABASE IS NOT NEUTRALIZED!\)\): /);
    expect(await state(read)).to.deep.include({ flag: 'true', crons: [false] });
  });

  it('never neutralizes a production copy: no command run, nothing recorded', async () => {
    const calls: string[] = [];
    const runtime = { kind: 'process', runCommand: async (_spec: unknown, subcommand: string) => void calls.push(subcommand) } as unknown as Runtime;
    const { facts, read } = await runDatabaseStep({ erpVersion: '17.0', stage: 'production', runtime });
    expect(facts).to.deep.equal({});
    expect(calls).to.deep.equal([]);
    expect(await state(read)).to.deep.include({ flag: undefined, banner: false, crons: [true] });
  });
});
