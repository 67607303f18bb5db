import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import {
  type RunUpgradeInput,
  type RunUpgradeOptions,
  type UpgradeRequestRef,
  UpgradeServiceError,
  runUpgrade,
  upgradeClient,
} from '#services/executor/migration/upgradeService/index.ts';
import { runDir } from '#test/support/runDir.ts';
import { type UpgradePlatform, startUpgradePlatform } from '#test/support/upgradePlatform.ts';
import { waitUntil } from '#test/support/wait.ts';

const contract = 'M123456-abcdef';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
function dumpOf(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 1) bytes[i] = (i * 7 + (i >> 9)) % 251;
  return bytes;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: Error) => error,
  );
}

describe('executor: upgrade-service runs against an imitation of the vendor’s platform', function () {
  this.timeout(20_000);
  let dir: string;
  let dump: string;
  let platform: UpgradePlatform;
  let child: ChildProcess | undefined;
  let runs = 0;

  before(() => {
    dir = runDir('upgrade-service');
    dump = join(dir, 'acme.dump');
    writeFileSync(dump, dumpOf(300 * 1024));
  });
  beforeEach(async () => {
    platform = await startUpgradePlatform({ contracts: [contract] });
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    await platform.close();
  });

  const run = (input: Partial<RunUpgradeInput> = {}, options: RunUpgradeOptions = {}) =>
    runUpgrade(
      { client: upgradeClient(platform.url), contract, aim: 'test', target: '17.0', email: 'ops@example.com', dump, resultFile: join(dir, `result-${++runs}.dump`), ...input },
      { pollMs: 5, ...options },
    );
  const requestOf = (ref: UpgradeRequestRef | undefined) => platform.requests.get(Number(ref?.requestId));
  const partFiles = () => readdirSync(dir).filter((name) => name.endsWith('.part'));

  it('creates, uploads, processes, polls and downloads the upgraded dump, written whole with its sha256', async () => {
    const recorded: UpgradeRequestRef[] = [];
    const outcome = await run({
      onRequest: (request) => {
        expect(platform.counts.upload, 'the request is recorded before the upload').to.equal(0);
        recorded.push(request);
      },
    });
    const upgraded = readFileSync(outcome.file);
    expect(recorded).to.deep.equal([outcome.request]);
    expect(upgraded.subarray(0, 300 * 1024)).to.deep.equal(readFileSync(dump));
    expect(upgraded.toString('latin1')).to.match(new RegExp(`upgraded to 17\\.0 by the imitation platform \\(request ${outcome.request.requestId}\\)\\n$`));
    expect(upgraded).to.deep.equal(platform.result(Number(outcome.request.requestId)));
    expect(outcome.sha256).to.equal(sha256(upgraded));
    expect(outcome.bytes).to.equal(upgraded.length);
    expect(outcome.status.state).to.equal('done');
    expect(requestOf(outcome.request)).to.include({ aim: 'test', target: '17.0', filename: 'acme.dump', email: 'ops@example.com', state: 'done' });
    expect(platform.counts).to.include({ create: 1, upload: 1, uploadCompleted: 1, process: 1, download: 1 });
    expect(partFiles()).to.deep.equal([]);
  });

  it('continues the same request after the executor running it was killed mid-poll: one create, one upload', async () => {
    platform.faults.holdProcessing = true;
    const moduleUrl = pathToFileURL(resolve('services/executor/migration/upgradeService/index.ts')).href;
    const script = `
      import { runUpgrade, upgradeClient } from ${JSON.stringify(moduleUrl)};
      const [url, dump, resultFile] = process.argv.slice(1);
      await runUpgrade(
        { client: upgradeClient(url), contract: ${JSON.stringify(contract)}, aim: 'production', target: '17.0', email: 'ops@example.com', dump, resultFile,
          onRequest: (request) => { process.stdout.write(JSON.stringify(request) + '\\n'); } },
        { pollMs: 10 },
      );`;
    const resultFile = join(dir, 'crashed.dump');
    child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, platform.url, dump, resultFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (data: Buffer) => (out += data.toString()));
    await waitUntil(() => out.includes('\n'), 'the first executor to record its request', 15_000);
    const facts = JSON.parse(out.split('\n')[0] ?? '') as UpgradeRequestRef;
    await waitUntil(() => (requestOf(facts)?.polls ?? 0) >= 2, 'the first executor to poll the processing');
    const exited = new Promise((done) => child?.once('exit', done));
    child.kill('SIGKILL');
    await exited;

    const lines: string[] = [];
    const resumed = runUpgrade(
      { client: upgradeClient(platform.url), contract, aim: 'production', target: '17.0', dump, resultFile, resume: facts },
      { pollMs: 5, log: (line) => void lines.push(line) },
    );
    await waitUntil(() => lines.length > 0, 'the second executor to read the request');
    platform.release();
    const outcome = await resumed;
    expect(outcome.request).to.deep.equal(facts);
    expect(readFileSync(resultFile)).to.deep.equal(platform.result(Number(facts.requestId)));
    expect(platform.counts).to.include({ create: 1, upload: 1, uploadCompleted: 1, process: 1 });
    expect(lines[0]).to.match(new RegExp(`^upgrade-service: resuming request ${facts.requestId}: state progress`));
  });

  it('resumes a request uploaded before the crash by asking to process it, without uploading again', async () => {
    const client = upgradeClient(platform.url);
    const request = await client.createRequest({ contract, aim: 'test', target: '18.0', filename: 'acme.dump', email: 'ops@example.com' });
    await client.upload(request, dump);
    const outcome = await run({ resume: request });
    expect(outcome.request).to.deep.equal(request);
    expect(platform.counts).to.include({ create: 1, upload: 1, process: 1, download: 1 });
  });

  it('fails with the platform’s message when its processing failed, naming the request to keep', async () => {
    platform.faults.failProcessing = 'The upgrade of module acme_custom failed: column "x_legacy" does not exist (see the upgrade report)';
    const error = await rejection(run());
    expect(error).to.be.instanceOf(UpgradeServiceError);
    const failure = error as UpgradeServiceError;
    expect(failure.kind).to.equal('failed');
    expect(failure.retryable).to.equal(false);
    expect(failure.message).to.match(/^the upgrade platform failed request \d+: The upgrade of module acme_custom failed: column "x_legacy" does not exist/);
    expect(failure.details.request?.requestId).to.match(/^\d+$/);
    expect(failure.details.platformState).to.equal('failed');
    expect(platform.counts.download).to.equal(0);
  });

  it('says when the platform cancelled the request', async () => {
    platform.faults.holdProcessing = true;
    const running = run();
    await waitUntil(() => [...platform.requests.values()].some((request) => request.polls >= 1), 'the processing to be polled');
    platform.cancel([...platform.requests.keys()][0] ?? 0);
    const error = (await rejection(running)) as UpgradeServiceError;
    expect(error.kind).to.equal('cancelled');
    expect(error.message).to.match(/cancelled request \d+: the platform gave no reason/);
  });

  it('stops an upload the platform does not read as soon as the job is aborted', async () => {
    const big = join(dir, 'big.dump');
    writeFileSync(big, dumpOf(32 * 1024 * 1024));
    platform.faults.stallUpload = true;
    const abort = new AbortController();
    const running = run({ dump: big }, { signal: abort.signal });
    await waitUntil(() => [...platform.requests.values()].some((request) => request.received > 0), 'the upload to start');
    const started = Date.now();
    abort.abort(new Error('job 42 cancelled'));
    const error = await rejection(running);
    expect(Date.now() - started).to.be.below(1000);
    expect(error.message).to.equal('job 42 cancelled');
    expect(platform.counts).to.include({ upload: 1, uploadCompleted: 0, process: 0 });
  });

  it('stops polling at once when aborted, however long the poll interval', async () => {
    platform.faults.holdProcessing = true;
    const abort = new AbortController();
    const running = run({}, { signal: abort.signal, pollMs: 60_000 });
    await waitUntil(() => platform.counts.status >= 1, 'the first status read');
    const started = Date.now();
    abort.abort();
    const error = await rejection(running);
    expect(Date.now() - started).to.be.below(1000);
    expect(error.name).to.equal('AbortError');
  });

  it('sends the dump again when the connection drops during the upload', async () => {
    platform.faults.dropUpload = { afterBytes: 64 * 1024, times: 1 };
    const lines: string[] = [];
    const outcome = await run({}, { log: (line) => void lines.push(line) });
    expect(readFileSync(outcome.file).subarray(0, 300 * 1024)).to.deep.equal(readFileSync(dump));
    expect(platform.counts).to.include({ create: 1, upload: 2, uploadCompleted: 1 });
    expect(lines.some((line) => /the upload interrupted \(could not upload the dump of request \d+: the connection/.test(line))).to.equal(true);
  });

  it('continues a dropped download where it stopped, with a Range request', async () => {
    platform.faults.dropDownload = { afterBytes: 100_000, times: 1 };
    const running = run();
    const partSize = () => partFiles().reduce((size, name) => size + statSync(join(dir, name)).size, 0);
    await waitUntil(() => partSize() === 100_000, 'the first 100,000 bytes to reach the partial copy');
    platform.dropHeldDownloads();
    const outcome = await running;
    const expected = platform.result(Number(outcome.request.requestId));
    expect(readFileSync(outcome.file)).to.deep.equal(expected);
    expect(outcome.sha256).to.equal(sha256(expected));
    expect(platform.downloadRanges).to.deep.equal([null, 'bytes=100000-']);
    expect(partFiles()).to.deep.equal([]);
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
    expect(existsSync(join(dir, `result-${runs}.dump`))).to.equal(false);
  });
});
