import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { userInfo } from 'node:os';
import { expect } from 'chai';
import {
  type RunUpgradeInput,
  type RunUpgradeOptions,
  type UpgradeRequestRef,
  UpgradeServiceError,
  runUpgrade,
  upgradeClient,
} from '#services/executor/migration/upgradeService/index.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { RETURNED_FILE, type UpgradePlatform, startUpgradePlatform } from '#test/support/upgradePlatform.ts';
import { waitUntil } from '#test/support/wait.ts';
import { freshName, pgDump, sql } from './fixtures/databaseFixtures.ts';
import { MIGRATION_ERP_TABLES } from './fixtures/migrationStepsContext.ts';

const contract = 'M123456-abcdef';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: Error) => error,
  );
}

/**
 * runUpgrade against the imitation platform (test/support/upgradePlatform.ts): JSON-RPC for
 * control, the dump and the result moved by real rsync over a real sshd on 127.0.0.1, the upgrade
 * done on the test cluster.
 */
describe('executor: upgrade-service runs against an imitation of the vendor’s platform', function () {
  this.timeout(60_000);
  let dir: string;
  let dump: string;
  let adminUrl: string;
  let platform: UpgradePlatform;
  let child: ChildProcess | undefined;
  let runs = 0;

  before(async () => {
    dir = runDir('upgrade-service');
    adminUrl = (await testCluster()).urlFor('postgres');
    const source = freshName('upgsrc');
    await sql(adminUrl, 'postgres', `create database ${source}`);
    await sql(adminUrl, source, MIGRATION_ERP_TABLES);
    dump = join(dir, 'acme.dump');
    pgDump(adminUrl, source, 'c', dump);
  });
  beforeEach(async () => {
    platform = await startUpgradePlatform({ contracts: [contract] });
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    await platform.close();
  });

  const input = (overrides: Partial<RunUpgradeInput> = {}): RunUpgradeInput => {
    runs += 1;
    return {
      client: upgradeClient(platform.url),
      contract,
      aim: 'test',
      target: '17.0',
      dump,
      resultDir: join(dir, `result-${runs}`),
      keyDir: join(dir, `key-${runs}`),
      sshUser: userInfo().username,
      ...overrides,
    };
  };
  const run = (overrides: Partial<RunUpgradeInput> = {}, options: RunUpgradeOptions = {}) => runUpgrade(input(overrides), { pollMs: 5, ...options });
  const requestOf = (ref: UpgradeRequestRef | undefined) => platform.requests.get(Number(ref?.requestId));

  it('creates, uploads by rsync over SSH, processes, polls and downloads a directory dump with its filestore, report and log', async () => {
    const recorded: UpgradeRequestRef[] = [];
    const lines: string[] = [];
    const outcome = await run(
      {
        envVars: ['UPG_SKIP_TESTS=1'],
        onRequest: (request) => {
          expect(platform.counts.transferUpload, 'the request is recorded before the upload').to.equal(0);
          recorded.push(request);
        },
      },
      { log: (line) => void lines.push(line) },
    );
    expect(recorded).to.deep.equal([outcome.request]);
    expect(outcome.request.hostUri).to.equal(platform.host);
    const request = requestOf(outcome.request);
    // The dump arrived whole, over rsync, as origin.dump; no HTTP body carried it.
    expect(request?.uploaded).to.deep.equal({ sha256: sha256(readFileSync(dump)), bytes: readFileSync(dump).length });
    expect(platform.largestBody()).to.be.below(4096);
    expect(platform.counts).to.include({ create: 1, transferUpload: 1, transferDownload: 1, transferStop: 2, process: 1, legacy: 0 });
    expect(request).to.include({ aim: 'test', target: '17.0', state: 'done' });
    expect(request?.envVars).to.deep.equal(['UPG_SKIP_TESTS=1']);
    expect(request?.sshKey).to.match(/^ssh-ed25519 \S+ forja-upgrade-17\.0$/);
    expect(platform.granted(request?.id ?? 0), 'the key is revoked once the download is over').to.equal(false);
    // What the script downloads: the dump (a pg_dump -Fd folder), filestore/, the report and the log.
    expect(outcome.dumpName).to.equal('upgraded.dump');
    expect(readdirSync(outcome.dir).sort()).to.deep.equal(['filestore', 'upgrade-report.html', 'upgrade.log', 'upgraded.dump']);
    expect(existsSync(join(outcome.dir, 'upgraded.dump', 'toc.dat'))).to.equal(true);
    expect(readFileSync(join(outcome.dir, 'filestore', RETURNED_FILE.path), 'utf8')).to.equal(RETURNED_FILE.content);
    expect(outcome.pgVersionCompatible).to.equal(true);
    expect(lines).to.include('upgrade-service: platform: Upgrading to 17.0');
    expect(lines.at(-1)).to.equal('upgrade-service: downloaded upgraded.dump and its filestore/');
  });

  it('continues the same request after the executor running it was killed mid-poll: one create, one upload', async () => {
    platform.faults.holdProcessing = true;
    const moduleUrl = pathToFileURL(resolve('services/executor/migration/upgradeService/index.ts')).href;
    const first = input({ aim: 'production' });
    const script = `
      import { runUpgrade, upgradeClient } from ${JSON.stringify(moduleUrl)};
      const [url, settings] = process.argv.slice(1);
      await runUpgrade(
        { ...JSON.parse(settings), client: upgradeClient(url), onRequest: (request) => { process.stdout.write(JSON.stringify(request) + '\\n'); } },
        { pollMs: 10 },
      );`;
    const settings = JSON.stringify({ ...first, client: undefined });
    child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, platform.url, settings], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (data: Buffer) => (out += data.toString()));
    await waitUntil(() => out.includes('\n'), 'the first executor to record its request', 20_000);
    const facts = JSON.parse(out.split('\n')[0] ?? '') as UpgradeRequestRef;
    await waitUntil(() => (requestOf(facts)?.polls ?? 0) >= 2, 'the first executor to poll the processing', 20_000);
    const exited = new Promise((done) => child?.once('exit', done));
    child.kill('SIGKILL');
    await exited;

    const lines: string[] = [];
    const resumed = runUpgrade({ ...first, client: upgradeClient(platform.url), resume: facts }, { pollMs: 5, log: (line) => void lines.push(line) });
    await waitUntil(() => lines.length > 0, 'the second executor to read the request');
    platform.release();
    const outcome = await resumed;
    expect(outcome.request).to.deep.equal(facts);
    expect(platform.counts).to.include({ create: 1, transferUpload: 1, process: 1, transferDownload: 1 });
    expect(lines[0]).to.match(new RegExp(`^upgrade-service: resuming request ${facts.requestId}: state progress`));
  });

  it('resumes a request whose dump was uploaded before the crash by asking to process it, without uploading again', async () => {
    const abort = new AbortController();
    let ref: UpgradeRequestRef | undefined;
    const first = input();
    const crashed = runUpgrade({ ...first, onRequest: (request) => void (ref = request) }, { pollMs: 5, signal: abort.signal });
    await waitUntil(() => requestOf(ref)?.uploaded !== null && requestOf(ref) !== undefined, 'the upload to end', 20_000);
    abort.abort(new Error('executor stopped'));
    await crashed.catch(() => undefined);
    const before = platform.counts.process;
    const outcome = await runUpgrade({ ...first, resume: ref }, { pollMs: 5 });
    expect(outcome.request).to.deep.equal(ref);
    expect(platform.counts.transferUpload).to.equal(1);
    expect(platform.counts.process).to.be.at.most(before + 1);
    expect(outcome.status.state).to.equal('done');
  });

  it('starts a new request when the one to resume was archived by the platform, as the script does', async () => {
    const first = await run();
    platform.archive(Number(first.request.requestId));
    const lines: string[] = [];
    const second = await run({ resume: first.request }, { log: (line) => void lines.push(line) });
    expect(second.request.requestId).not.to.equal(first.request.requestId);
    expect(lines[0]).to.match(new RegExp(`^upgrade-service: request ${first.request.requestId} is archived on the platform`));
    expect(platform.counts.create).to.equal(2);
  });

  it('fails with the platform’s reason when its processing failed, naming the request to keep', async () => {
    platform.faults.failProcessing = 'The upgrade of module acme_custom failed: column "x_legacy" does not exist (see the upgrade report)';
    const error = await rejection(run());
    expect(error).to.be.instanceOf(UpgradeServiceError);
    const failure = error as UpgradeServiceError;
    expect(failure.kind).to.equal('failed');
    expect(failure.retryable).to.equal(false);
    expect(failure.message).to.match(/^the upgrade platform failed request \d+: The upgrade of module acme_custom failed: column "x_legacy" does not exist/);
    expect(failure.details.request?.requestId).to.match(/^\d+$/);
    expect(failure.details.platformState).to.equal('failed');
    expect(platform.counts.transferDownload).to.equal(0);
  });

  it('says when the platform cancelled the request', async () => {
    platform.faults.holdProcessing = true;
    const running = run();
    await waitUntil(() => [...platform.requests.values()].some((request) => request.polls >= 1), 'the processing to be polled', 20_000);
    platform.cancel([...platform.requests.keys()][0] ?? 0);
    const error = (await rejection(running)) as UpgradeServiceError;
    expect(error.kind).to.equal('cancelled');
    expect(error.message).to.match(/cancelled request \d+: the platform gave no reason/);
  });

  it('stops an rsync the node does not answer as soon as the job is aborted', async () => {
    platform.faults.stallTransfers = true;
    const abort = new AbortController();
    const running = run({}, { signal: abort.signal });
    await waitUntil(() => platform.counts.transferUpload >= 1, 'the upload to start', 20_000);
    await new Promise((done) => setTimeout(done, 500));
    const started = Date.now();
    abort.abort(new Error('job 42 cancelled'));
    const error = await rejection(running);
    expect(Date.now() - started).to.be.below(5000);
    expect(error.message).to.equal('job 42 cancelled');
    expect(platform.counts).to.include({ transferUpload: 1, process: 0 });
  });

  it('stops polling at once when aborted, however long the poll interval', async () => {
    platform.faults.holdProcessing = true;
    const abort = new AbortController();
    const running = run({}, { signal: abort.signal, pollMs: 60_000 });
    await waitUntil(() => platform.counts.status >= 1, 'the first status read', 20_000);
    const started = Date.now();
    abort.abort();
    const error = await rejection(running);
    expect(Date.now() - started).to.be.below(1000);
    expect(error.name).to.equal('AbortError');
  });

  it('opens the transfer again and goes on when the node cuts an rsync session', async () => {
    platform.faults.breakTransfers = 1;
    const lines: string[] = [];
    const outcome = await run({}, { log: (line) => void lines.push(line) });
    expect(requestOf(outcome.request)?.uploaded?.bytes).to.equal(readFileSync(dump).length);
    expect(platform.counts).to.include({ create: 1, transferUpload: 2 });
    expect(lines.some((line) => /^upgrade-service: the upload interrupted \(could not upload the dump to 127\.0\.0\.1: .*connection reset by the imitation.*\(rsync exited with 12\)\); trying again \(2 of 3\)$/.test(line))).to.equal(true);
  });

  it('refuses a node whose host key is not the one the platform announced, without retrying', async () => {
    platform.faults.wrongHostKey = true;
    const error = (await rejection(run())) as UpgradeServiceError;
    expect(error.kind).to.equal('protocol');
    expect(error.message).to.match(/^could not upload the dump to 127\.0\.0\.1: the node's host key is not the one the platform announced \(rsync exited with \d+\)$/);
    expect(platform.counts.transferUpload).to.equal(1);
    expect(platform.counts.process).to.equal(0);
  });

  it('waits out a few failed status reads (HTTP 502 pages)', async () => {
    platform.faults.statusErrors = 2;
    const lines: string[] = [];
    const outcome = await run({}, { log: (line) => void lines.push(line) });
    expect(outcome.status.state).to.equal('done');
    expect(lines.filter((line) => line.includes('answered HTTP 502 (text/html) instead of JSON'))).to.have.length(2);
  });

  it('stops waiting after timeoutMs with a retryable error that names the request', async () => {
    platform.faults.holdProcessing = true;
    const error = (await rejection(run({}, { timeoutMs: 50 }))) as UpgradeServiceError;
    expect(error.kind).to.equal('timeout');
    expect(error.retryable).to.equal(true);
    expect(error.message).to.match(/^request \d+ is still progress after 0 min; a retry resumes it$/);
    expect(error.details.request?.requestId).to.equal(String([...platform.requests.keys()][0]));
    expect(platform.counts.transferDownload).to.equal(0);
  });
});
