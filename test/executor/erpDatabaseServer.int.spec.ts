import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ERP_CLUSTER_OS_USER, openErpDatabaseServer } from '#services/executor/erpDatabaseServer.ts';
import { testCluster } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';

const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
const postmasterPid = (clusterDir: string) => Number(readFileSync(join(clusterDir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);

/**
 * Issue 10, item 1: both private clusters ran as `postgres`, so what a customer database made its
 * server do (COPY … TO PROGRAM, as a superuser once) could rewrite the event store's pg_hba.conf.
 * The ERP cluster now runs as an OS user of its own.
 */
describe('the private ERP database cluster', function () {
  this.timeout(90_000);

  it('runs as its own OS user, who can read none of the event-store cluster’s files', async function () {
    if (process.getuid?.() !== 0) this.skip(); // unprivileged, every cluster runs as the one user there is
    const dataDir = runDir('erp-cluster');
    const server = await openErpDatabaseServer(undefined, dataDir);
    try {
      const erpUid = uidOf(postmasterPid(join(dataDir, 'erp-postgres')));
      expect(erpUid).to.equal(Number(spawnSync('id', ['-u', ERP_CLUSTER_OS_USER], { encoding: 'utf8' }).stdout.trim()));
      const eventStoreDir = (await testCluster()).dir;
      expect(erpUid).to.not.equal(uidOf(postmasterPid(eventStoreDir)));
      const reads = spawnSync('runuser', ['-u', ERP_CLUSTER_OS_USER, '--', 'test', '-r', join(eventStoreDir, 'pgdata', 'pg_hba.conf')]);
      expect(reads.status, 'the ERP cluster’s user reads the event store’s pg_hba.conf').to.not.equal(0);
    } finally {
      await server.close();
    }
  });
});
