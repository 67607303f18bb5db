import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import type { StepOutcome } from '#shared/workflow/stepOutcome.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { urlAs } from '#services/executor/database/pgServer.ts';
import { upgradeServiceStep } from '#services/executor/migration/steps/upgradeServiceStep.ts';
import { takeCheckpoint } from '#services/executor/migration/steps/checkpoint.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { RETURNED_FILE, type UpgradePlatform, startUpgradePlatform } from '#test/support/upgradePlatform.ts';
import { waitUntil } from '#test/support/wait.ts';
import { freshName, sql } from './fixtures/databaseFixtures.ts';
import { MIGRATION_ERP_TABLES, migrationStepContext } from './fixtures/migrationStepsContext.ts';

const credentials = (database: string) => instanceCredentials('test master key', database);
const contract = 'M123456-abcdef';
/** The attachments MIGRATION_ERP_TABLES lists, as files of the working filestore. */
const ATTACHMENTS: Record<string, string> = { 'ab/ab12': 'invoice.pdf', 'cd/cd34': 'logo.png' };

/**
 * The `upgrade_service` step end to end against the imitation platform (JSON-RPC + rsync over a
 * local sshd; test/support/upgradePlatform.ts): the working database goes up as a custom dump and
 * comes back upgraded, the returned filestore is merged into the working one.
 */
describe('executor: the upgrade_service step restores the platform’s result and merges its filestore', function () {
  this.timeout(90_000);
  let adminUrl: string;
  let platform: UpgradePlatform;
  let dataDir: string;
  let work: string;

  before(async () => {
    adminUrl = (await testCluster()).urlFor('postgres');
  });
  afterEach(async () => platform?.close());

  async function prepared(options: { signal?: AbortSignal; dirty?: boolean; slug?: string } = {}) {
    const made = migrationStepContext({
      adminUrl,
      credentials,
      workingDatabase: work,
      checkpointDatabase: `${work}_ck`,
      dataDir,
      blobs: createFsBlobStore(join(dataDir, 'blobs')),
      step: { id: 'upgrade', type: 'upgrade_service', params: { hop: { origin: '16.0', destination: '17.0' }, env: { UPG_SKIP_TESTS: 1 } } },
      ...options,
    });
    Object.assign(made.context.migration, { engine: 'upgrade-service', flavor: 'enterprise', contract });
    return made;
  }
  const step = () => upgradeServiceStep({ url: platform.url, sshUser: userInfo().username, dataPath: '/data', pollMs: 20 });
  const working = (query: string) => sql<Record<string, unknown>>(urlAs(adminUrl, work, credentials(work)), work, query);
  const filestoreFile = (path: string) => join(dataDir, 'migrations', 'acme', 'work', 'filestore', work, path);
  const facts = (outcome: StepOutcome) => {
    if (outcome.outcome !== 'done') throw new Error(`expected done, got ${JSON.stringify(outcome)}`);
    return outcome.facts as Record<string, unknown>;
  };

  async function workingDatabase() {
    dataDir = runDir('upgrade-service-step');
    work = freshName('migupg');
    const { context } = await prepared({ slug: 'acme' });
    await context.databases.recreate(work);
    await working(MIGRATION_ERP_TABLES);
    await working(`update ir_attachment set name = name`);
    for (const [path, content] of Object.entries(ATTACHMENTS)) {
      mkdirSync(dirname(filestoreFile(path)), { recursive: true });
      writeFileSync(filestoreFile(path), content);
    }
    await takeCheckpoint(context);
  }

  it('sends the working database by rsync, restores the directory dump it gets back and merges the returned filestore, keeping the old files', async () => {
    platform = await startUpgradePlatform({ contracts: [contract] });
    await workingDatabase();
    const { context, lines } = await prepared({ slug: 'acme' });
    const result = facts(await step()(context));

    expect(result).to.include({ target: '17.0', result: 'upgraded.dump', format: 'directory', filestoreAdded: 1, pgVersionCompatible: true });
    const request = platform.requests.get(Number(result.requestId));
    expect(request?.envVars).to.deep.equal(['UPG_SKIP_TESTS=1']);
    expect(request?.uploaded?.bytes).to.be.above(1000);
    // The dump never travelled in HTTP: the legacy API was not called and every body was a control call.
    expect(platform.counts.legacy).to.equal(0);
    expect(platform.largestBody()).to.be.below(4096);
    const modules = await working("select name, latest_version from ir_module_module where state = 'installed' order by name");
    expect(modules.map((row) => `${String(row.name)} ${String(row.latest_version)}`)).to.deep.equal(['acme_custom 17.0.1.0', 'base 17.0.1.3', 'sale 17.0.1.0', 'theme_fancy 17.0.1.0']);
    expect(await working(`select store_fname from ir_attachment where name = '${RETURNED_FILE.name}'`)).to.deep.equal([{ store_fname: RETURNED_FILE.path }]);
    for (const [path, content] of Object.entries(ATTACHMENTS)) expect(readFileSync(filestoreFile(path), 'utf8'), path).to.equal(content);
    expect(readFileSync(filestoreFile(RETURNED_FILE.path), 'utf8')).to.equal(RETURNED_FILE.content);
    const report = result.artifact as { kind: string; key: string };
    expect(report.kind).to.equal('report');
    expect(readFileSync(join(dataDir, 'blobs', report.key), 'utf8')).to.include(`Request ${String(result.requestId)}: upgraded to 17.0.`);
    expect(existsSync(join(dataDir, 'migrations', 'acme', 'private', 'run-1-upgrade')), 'the token, key and transfers are gone').to.equal(false);
    expect(lines).to.include('upgrade-service: merged 1 returned file(s) into the working filestore (3 in all)');
  });

  it('takes the zip variant: its dump.sql restored, its filestore/ merged', async () => {
    platform = await startUpgradePlatform({ contracts: [contract], resultFormat: 'zip' });
    await workingDatabase();
    const { context } = await prepared({ slug: 'acme' });
    const result = facts(await step()(context));
    expect(result).to.include({ result: 'upgraded.zip', format: 'plain', filestoreAdded: 1 });
    expect((await working("select latest_version from ir_module_module where name = 'base'"))[0]).to.deep.equal({ latest_version: '17.0.1.3' });
    expect(readFileSync(filestoreFile(RETURNED_FILE.path), 'utf8')).to.equal(RETURNED_FILE.content);
    expect(readFileSync(filestoreFile('ab/ab12'), 'utf8')).to.equal('invoice.pdf');
  });

  it('resumes the same request after the executor stopped mid-processing: one request, one upload', async () => {
    platform = await startUpgradePlatform({ contracts: [contract] });
    platform.faults.holdProcessing = true;
    await workingDatabase();
    const abort = new AbortController();
    const first = await prepared({ slug: 'acme', signal: abort.signal });
    const stopped = step()(first.context).catch((error: Error) => error);
    await waitUntil(() => [...platform.requests.values()].some((request) => request.polls >= 1), 'the processing to be polled', 30_000);
    abort.abort(new Error('executor stopping'));
    expect(((await stopped) as Error).message).to.equal('executor stopping');
    expect(existsSync(join(dataDir, 'migrations', 'acme', 'private', 'run-1-upgrade', 'request.json'))).to.equal(true);

    platform.release();
    const { context, lines } = await prepared({ slug: 'acme', dirty: true });
    const result = facts(await step()(context));
    expect(platform.counts).to.include({ create: 1, transferUpload: 1, process: 1 });
    expect(result.requestId).to.equal(String([...platform.requests.keys()][0]));
    expect(lines.some((line) => line.startsWith(`upgrade-service: resuming request ${String(result.requestId)}: state progress`))).to.equal(true);
    expect((await working("select latest_version from ir_module_module where name = 'sale'"))[0]).to.deep.equal({ latest_version: '17.0.1.0' });
  });

  it('fails with the platform’s reason, keeping the request for a retry to read', async () => {
    platform = await startUpgradePlatform({ contracts: [contract] });
    platform.faults.failProcessing = 'Module acme_custom: upgrade script failed';
    await workingDatabase();
    const { context } = await prepared({ slug: 'acme' });
    const error = await step()(context).then(
      () => expect.fail('expected a failure'),
      (caught: Error) => caught,
    );
    expect(error.message).to.match(/^the upgrade platform failed request \d+: Module acme_custom: upgrade script failed$/);
    expect((await working("select latest_version from ir_module_module where name = 'base'"))[0]).to.deep.equal({ latest_version: '16.0.1.3' });
  });
});
