import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { erpMemoryBytes, readErpServerRecord } from '#services/monitoring/erpMemory.ts';
import { instanceDir } from '#shared/platform/dataPaths.ts';

/** What the process runtime writes for a server: its group leader's pid, its port and database. */
const record = (pid: number, port: number) => ({ pid, port, startedAt: new Date().toISOString(), command: 'odoo-bin', database: 'forja_acme_main' });

describe('an ERP server\'s memory from its pid file and /proc', () => {
  let server: ChildProcess;
  let dataDir: string;

  before(() => {
    // A server as the runtime starts one: detached (leading its group), with --http-port on its command line.
    server = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', '-d', 'forja_acme_main', '--http-port', '18069'], { detached: true, stdio: 'ignore' });
    dataDir = mkdtempSync(join(tmpdir(), 'forja-erp-memory-'));
  });
  after(() => {
    if (server.pid) process.kill(-server.pid, 'SIGKILL');
  });

  const writeRecord = (slug: string, content: string) => {
    mkdirSync(instanceDir(dataDir, slug), { recursive: true });
    writeFileSync(join(instanceDir(dataDir, slug), 'erp-server.pid'), content);
  };

  it('adds up the resident memory of the server\'s process group', () => {
    writeRecord('acme-main', JSON.stringify(record(server.pid!, 18069)));
    const found = readErpServerRecord(dataDir, 'acme-main');
    expect(found).to.include({ pid: server.pid, port: 18069 });
    // A Node process holds some tens of MiB.
    expect(erpMemoryBytes(found)).to.be.greaterThan(10 * 2 ** 20);
  });

  it('measures nothing for a pid that is not the recorded server (another port) or no record', () => {
    expect(erpMemoryBytes(record(server.pid!, 18070))).to.equal(null);
    expect(erpMemoryBytes(record(process.pid, 18069))).to.equal(null);
    expect(erpMemoryBytes(null)).to.equal(null);
  });

  it('reads no record through a link, from a folder, or from a file that is no record', () => {
    const target = join(dataDir, 'elsewhere.json');
    writeFileSync(target, JSON.stringify(record(server.pid!, 18069)));
    mkdirSync(instanceDir(dataDir, 'via-link'), { recursive: true });
    symlinkSync(target, join(instanceDir(dataDir, 'via-link'), 'erp-server.pid'));
    expect(readErpServerRecord(dataDir, 'via-link')).to.equal(null);
    mkdirSync(join(instanceDir(dataDir, 'a-folder'), 'erp-server.pid'), { recursive: true });
    expect(readErpServerRecord(dataDir, 'a-folder')).to.equal(null);
    writeRecord('garbage', '{"pid":"1"}');
    expect(readErpServerRecord(dataDir, 'garbage')).to.equal(null);
    expect(readErpServerRecord(dataDir, 'missing')).to.equal(null);
  });
});
