import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  type RunUpgradeInput,
  type UpgradeAim,
  UpgradeServiceError,
  maskSecret,
  nodeUrl,
  runUpgrade,
  upgradeClient,
} from '#services/executor/migration/upgradeService/index.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { type UpgradePlatform, startUpgradePlatform } from '#test/support/upgradePlatform.ts';
import { freshName, pgDump, sql } from './fixtures/databaseFixtures.ts';
import { MIGRATION_ERP_TABLES } from './fixtures/migrationStepsContext.ts';

const contract = 'M123456-abcdef';

async function refusal(promise: Promise<unknown>): Promise<UpgradeServiceError> {
  const error = await promise.then(
    () => expect.fail('expected a rejection'),
    (caught: Error) => caught,
  );
  expect(error).to.be.instanceOf(UpgradeServiceError);
  return error as UpgradeServiceError;
}

/** A platform on 127.0.0.1 that answers every call with `body` (HTTP `status`). */
async function answering(status: number, body: string, type = 'application/json') {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((done) => server.close(done)) };
}

describe('executor: upgrade-service refusals and secrets', function () {
  this.timeout(30_000);
  let dir: string;
  let dump: string;
  let platform: UpgradePlatform;
  let lines: string[];
  let runs = 0;

  before(async () => {
    dir = runDir('upgrade-service-refusals');
    const adminUrl = (await testCluster()).urlFor('postgres');
    const source = freshName('upgref');
    await sql(adminUrl, 'postgres', `create database ${source}`);
    await sql(adminUrl, source, MIGRATION_ERP_TABLES);
    dump = join(dir, 'acme.dump');
    pgDump(adminUrl, source, 'c', dump);
  });
  beforeEach(async () => {
    platform = await startUpgradePlatform({ contracts: [contract] });
    lines = [];
  });
  afterEach(async () => platform.close());

  const run = (input: Partial<RunUpgradeInput> = {}) => {
    runs += 1;
    return runUpgrade(
      { client: upgradeClient(platform.url), contract, aim: 'test', target: '17.0', dump, resultDir: join(dir, `result-${runs}`), keyDir: join(dir, `key-${runs}`), sshUser: userInfo().username, ...input },
      { pollMs: 5, log: (line) => void lines.push(line) },
    );
  };

  it('surfaces a wrong contract with the platform’s message, the contract masked, and creates nothing', async () => {
    const wrong = 'M999999-wrongxyz';
    const error = await refusal(run({ contract: wrong }));
    expect(error.kind).to.equal('refused');
    expect(error.retryable).to.equal(false);
    expect(error.message).to.equal(`the upgrade platform refused to create an upgrade request (test, to 17.0): Unable to find a subscription for the contract ${maskSecret(wrong)}`);
    expect(JSON.stringify(error.details) + error.message + lines.join('\n')).not.to.include(wrong);
    expect(platform.counts).to.include({ create: 1, transferUpload: 0 });
    expect(platform.requests.size).to.equal(0);
  });

  it('surfaces a wrong aim and an unsupported version with what the platform expects', async () => {
    const target = await refusal(run({ target: '12.0' }));
    expect(target.message).to.equal('the upgrade platform refused to create an upgrade request (test, to 12.0): Invalid target version "12.0": expected one of 16.0, 17.0, 18.0');
    const aim = await refusal(run({ aim: 'staging' as UpgradeAim }));
    expect(aim.message).to.equal('the upgrade platform refused to create an upgrade request (staging, to 17.0): Invalid aim "staging": expected test or production');
  });

  it('refuses a resume with a request the platform does not know, naming it', async () => {
    const unknown = { requestId: '99', token: 'f'.repeat(32), hostUri: platform.host };
    const error = await refusal(run({ resume: unknown }));
    expect(error.message).to.equal('the upgrade platform refused to read the status of request 99: Request not found');
    expect(error.details.request).to.deep.equal(unknown);
    expect(platform.counts.create).to.equal(0);
  });

  it('never logs the contract or the request’s token: only their last 4 characters', async () => {
    await run();
    await refusal(run({ contract: 'M123456-abcdeg' }));
    platform.faults.failProcessing = `Contract ${contract} is not valid for 17.0`;
    const failed = await refusal(run());
    const everything = lines.join('\n') + failed.message;
    expect(everything).not.to.include(contract);
    expect(everything).not.to.include('M123456-abcdeg');
    expect(platform.requests.size).to.equal(2);
    for (const request of platform.requests.values()) expect(everything).not.to.include(request.token);
    expect(lines).to.include(`upgrade-service: creating a test request to 17.0 (contract ${maskSecret(contract)})`);
    expect(failed.message).to.include(`Contract ${maskSecret(contract)} is not valid`);
  });

  it('refuses a platform URL that would send the contract in clear, and a node the platform names off this machine or not as a host', async () => {
    expect(() => upgradeClient('http://upgrade.example.com')).to.throw('FORJA_UPGRADE_SERVICE_URL must be an https URL (http only on 127.0.0.1), not http://upgrade.example.com');
    platform.faults.assignHost = 'files.example.com';
    const elsewhere = await refusal(run());
    expect(elsewhere.kind).to.equal('protocol');
    expect(elsewhere.message).to.equal(`the upgrade platform on ${platform.host} assigned the request to files.example.com: a platform reached over http may only use this machine`);
    expect(platform.counts.transferUpload).to.equal(0);
    expect(() => nodeUrl(new URL('https://upgrade.example.com/'), 'evil.example.com/path?x=')).to.throw('which is not a host name');
    expect(nodeUrl(new URL('https://upgrade.example.com/'), 'upgrade-n3.example.com:8443').href).to.equal('https://upgrade-n3.example.com:8443/');
  });

  it('says the dump is missing before it creates a request', async () => {
    const error = await run({ dump: join(dir, 'missing.dump') }).then(
      () => expect.fail('expected a rejection'),
      (caught: Error) => caught,
    );
    expect(error.message).to.include('missing.dump');
    expect(platform.counts.create).to.equal(0);
  });

  it('reads a JSON-RPC error as the platform’s refusal, and a page that is not JSON as what it is', async () => {
    const rpcError = await answering(200, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 200, message: 'Odoo Server Error', data: { message: `AccessDenied for ${contract}` } } }));
    try {
      const error = await refusal(run({ client: upgradeClient(rpcError.url) }));
      expect(error.message).to.equal(`the upgrade platform refused to create an upgrade request (test, to 17.0): AccessDenied for ${maskSecret(contract)}`);
    } finally {
      await rpcError.close();
    }
    const page = await answering(404, '<html>Not Found</html>', 'text/html');
    try {
      const error = await refusal(run({ client: upgradeClient(page.url) }));
      expect(error.kind).to.equal('protocol');
      expect(error.message).to.equal('could not create an upgrade request (test, to 17.0): the upgrade platform answered HTTP 404 (text/html) instead of JSON');
    } finally {
      await page.close();
    }
  });
});
