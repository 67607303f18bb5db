import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  type RunUpgradeInput,
  type UpgradeAim,
  UpgradeServiceError,
  maskSecret,
  runUpgrade,
  upgradeClient,
} from '#services/executor/migration/upgradeService/index.ts';
import { runDir } from '#test/support/runDir.ts';
import { type UpgradePlatform, startUpgradePlatform } from '#test/support/upgradePlatform.ts';

const contract = 'M123456-abcdef';

async function refusal(promise: Promise<unknown>): Promise<UpgradeServiceError> {
  const error = await promise.then(
    () => expect.fail('expected a rejection'),
    (caught: Error) => caught,
  );
  expect(error).to.be.instanceOf(UpgradeServiceError);
  return error as UpgradeServiceError;
}

describe('executor: upgrade-service refusals and secrets', function () {
  this.timeout(10_000);
  let dir: string;
  let dump: string;
  let platform: UpgradePlatform;
  let lines: string[];

  before(() => {
    dir = runDir('upgrade-service-refusals');
    dump = join(dir, 'acme.dump');
    writeFileSync(dump, 'PGDMP acme');
  });
  beforeEach(async () => {
    platform = await startUpgradePlatform({ contracts: [contract] });
    lines = [];
  });
  afterEach(async () => platform.close());

  const run = (input: Partial<RunUpgradeInput> = {}) =>
    runUpgrade(
      { client: upgradeClient(platform.url), contract, aim: 'test', target: '17.0', email: 'ops@example.com', dump, resultFile: join(dir, 'result.dump'), ...input },
      { pollMs: 5, log: (line) => void lines.push(line) },
    );

  it('surfaces a wrong contract with the platform’s message, the contract masked, and creates nothing', async () => {
    const wrong = 'M999999-wrongxyz';
    const error = await refusal(run({ contract: wrong }));
    expect(error.kind).to.equal('refused');
    expect(error.retryable).to.equal(false);
    expect(error.message).to.equal(
      `the upgrade platform refused to create an upgrade request (test, to 17.0): Can not find contract ${maskSecret(wrong)} (CONTRACT:NOT_FOUND)`,
    );
    expect(error.details.failures).to.deep.equal([{ reason: 'CONTRACT:NOT_FOUND', code: '************gxyz', message: 'Can not find contract ************gxyz' }]);
    expect(JSON.stringify(error.details) + error.message + lines.join('\n')).not.to.include(wrong);
    expect(platform.counts).to.include({ create: 1, upload: 0 });
    expect(platform.requests.size).to.equal(0);
  });

  it('surfaces a wrong aim and an unsupported version with what the platform expects, all at once', async () => {
    const error = await refusal(run({ aim: 'staging' as UpgradeAim, target: '12.0' }));
    expect(error.message).to.equal(
      'the upgrade platform refused to create an upgrade request (staging, to 12.0): ' +
        'Invalid value "12.0" (TARGET:INVALID; expected 16.0, 17.0, 18.0); Invalid value "staging" (AIM:INVALID; expected test, production)',
    );
    expect(error.details.failures?.map((failure) => failure.reason)).to.deep.equal(['TARGET:INVALID', 'AIM:INVALID']);
  });

  it('says which field the platform misses', async () => {
    const error = await refusal(run({ email: undefined }));
    expect(error.message).to.match(/refused to create an upgrade request \(test, to 17\.0\): Missing value for "email" \(EMAIL:MISSING\)$/);
  });

  it('refuses a resume with a request the platform does not know, and a key that is not the request’s', async () => {
    const client = upgradeClient(platform.url);
    const request = await client.createRequest({ contract, aim: 'test', target: '17.0', filename: 'acme.dump', email: 'ops@example.com' });
    const unknown = await refusal(run({ resume: { requestId: '99', key: request.key } }));
    expect(unknown.message).to.equal('the upgrade platform refused to read the status of request 99: Can not find request 99 (REQUEST:NOT_FOUND)');
    expect(unknown.details.request).to.deep.equal({ requestId: '99', key: request.key });
    const wrongKey = await refusal(client.status({ requestId: request.requestId, key: 'not-the-key-at-all' }));
    expect(wrongKey.kind).to.equal('refused');
  });

  it('never logs the contract or the request key: only their last 4 characters', async () => {
    await run();
    await refusal(run({ contract: 'M123456-abcdeg' }));
    platform.faults.failProcessing = `Contract ${contract} is not valid for 17.0`;
    const failed = await refusal(run());
    const everything = lines.join('\n') + failed.message;
    expect(everything).not.to.include(contract);
    expect(everything).not.to.include('M123456-abcdeg');
    expect(platform.requests.size).to.equal(2);
    for (const request of platform.requests.values()) expect(everything).not.to.include(request.key);
    expect(lines).to.include(`upgrade-service: creating a test request to 17.0 for acme.dump (contract ${maskSecret(contract)})`);
    expect(failed.message).to.include(`Contract ${maskSecret(contract)} is not valid`);
    expect(maskSecret(contract)).to.equal('**********cdef');
  });

  it('refuses a platform URL that would send the contract in clear, and a download offered on another host', async () => {
    expect(() => upgradeClient('http://upgrade.example.com')).to.throw('FORJA_UPGRADE_SERVICE_URL must be an https URL (http only on 127.0.0.1), not http://upgrade.example.com');
    const client = upgradeClient(platform.url);
    const request = { requestId: '1', key: 'k' };
    const error = await refusal(client.download(request, join(dir, 'elsewhere.dump'), { url: 'https://files.example.com/dump' }));
    expect(error.message).to.equal(`the upgraded dump of request 1 is offered on https://files.example.com, not on the platform's ${new URL(platform.url).origin}`);
  });

  it('says the dump is missing before it creates a request', async () => {
    const error = await run({ dump: join(dir, 'missing.dump') }).then(
      () => expect.fail('expected a rejection'),
      (caught: Error) => caught,
    );
    expect(error.message).to.include('missing.dump');
    expect(platform.counts.create).to.equal(0);
  });
});
