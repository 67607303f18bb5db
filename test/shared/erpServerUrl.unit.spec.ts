import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { erpServerAddress, erpServerAdminUrl } from '#shared/instanceDatabase/erpServerUrl.ts';

describe('the instance databases’ server, as the tools beside the executor find it', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'forja-erp-server-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const writeClusterState = (state: string) => {
    mkdirSync(join(dataDir, 'erp-postgres'), { recursive: true });
    writeFileSync(join(dataDir, 'erp-postgres', 'cluster.json'), state);
  };

  it('is FORJA_ERP_DATABASE_URL when set, and its address is only the host and port, never its user or password', () => {
    expect(erpServerAdminUrl(dataDir, 'postgres://admin:secret@db.internal:6432/postgres')).to.equal('postgres://admin:secret@db.internal:6432/postgres');
    expect(erpServerAddress(dataDir, 'postgres://admin:secret@db.internal:6432/postgres')).to.deep.equal({ host: 'db.internal', port: 6432 });
    expect(erpServerAddress(dataDir, 'postgresql://admin:secret@db.internal/postgres')).to.deep.equal({ host: 'db.internal', port: 5432 });
  });

  it('is the private cluster on 127.0.0.1 from its cluster.json, its generated password encoded in the URL', () => {
    writeClusterState(JSON.stringify({ port: 41234, password: 'admin s/cret' }));
    expect(erpServerAdminUrl(dataDir, undefined)).to.equal('postgres://postgres:admin%20s%2Fcret@127.0.0.1:41234/postgres');
    expect(erpServerAddress(dataDir, undefined)).to.deep.equal({ host: '127.0.0.1', port: 41234 });
  });

  it('is none before the executor made a cluster, or when its state is unreadable', () => {
    expect(erpServerAdminUrl(dataDir, undefined)).to.equal(undefined);
    writeClusterState('{"port": "x", "password": "p"}');
    expect(erpServerAddress(dataDir, undefined)).to.equal(undefined);
    writeClusterState('not json');
    expect(erpServerAdminUrl(dataDir, undefined)).to.equal(undefined);
  });
});
