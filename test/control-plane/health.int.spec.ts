import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startPostgresCluster, type PostgresCluster } from '#shared/local/postgresCluster.ts';
import { startTestPlatform, type TestPlatform } from '#test/support/platform.ts';

describe('control-plane /health with the database gone', function () {
  this.timeout(60_000);
  let dir: string;
  let cluster: PostgresCluster;
  let platform: TestPlatform;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'forja-health-'));
    chmodSync(dir, 0o755);
    cluster = await startPostgresCluster(join(dir, 'pg'));
    platform = await startTestPlatform([], { DATABASE_URL: cluster.url });
  });
  after(async () => {
    await platform?.stop().catch(() => undefined);
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 200 while the database answers, then 503 once it is stopped', async () => {
    const url = `${platform.urls.controlPlane}/health`;
    expect((await fetch(url)).status).to.equal(200);
    await cluster.stop();
    const started = Date.now();
    const res = await fetch(url);
    expect(res.status).to.equal(503);
    expect(await res.json()).to.deep.equal({ status: 'unavailable' });
    expect(Date.now() - started, 'bounded by the health timeout').to.be.below(5000);
  });
});
