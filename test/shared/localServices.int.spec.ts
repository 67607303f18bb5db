import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { freePort } from '#shared/local/freePort.ts';
import { startPostgresCluster } from '#shared/local/postgresCluster.ts';

describe('local services', function () {
  this.timeout(90_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'forja-local-'));
    chmodSync(dir, 0o755); // as root, PostgreSQL runs as `postgres`, who must reach the folder
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts a private PostgreSQL on loopback, finds it running the second time, and stops it', async () => {
    const first = await startPostgresCluster(join(dir, 'pg'));
    try {
      expect(first.startedHere).to.equal(true);
      expect(first.url).to.match(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/forja$/);
      const again = await startPostgresCluster(join(dir, 'pg'));
      expect(again).to.include({ port: first.port, startedHere: false, url: first.url });
      const client = new pg.Client(first.url);
      await client.connect();
      const { rows } = await client.query<{ addr: string }>('show listen_addresses');
      await client.end();
      expect(rows[0]?.addr ?? (rows[0] as Record<string, string> | undefined)?.['listen_addresses']).to.equal('127.0.0.1');
    } finally {
      await first.stop();
      await first.stop();
    }
    expect(existsSync(join(dir, 'pg', 'pgdata', 'postmaster.pid'))).to.equal(false);
    const refused = new pg.Client({ connectionString: first.url, connectionTimeoutMillis: 2000 });
    refused.on('error', () => undefined);
    expect(await refused.connect().then(() => 'connected', () => 'refused')).to.equal('refused');
  });

  it('says why when the postgres user cannot reach the data folder', async function () {
    if (process.getuid?.() !== 0) this.skip();
    chmodSync(dir, 0o700);
    const error = await startPostgresCluster(join(dir, 'pg')).catch((e: unknown) => e);
    expect((error as Error).message).to.match(/the postgres user cannot write .*: make its parent folders traversable/);
  });

  it('exits 1 with one line when a port is taken', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    const port = (holder.address() as AddressInfo).port;
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      env: { ...process.env, FORJA_CONTROL_PLANE_PORT: String(port), FORJA_WEB_PORT: String(await freePort()), FORJA_PADRON_PORT: String(await freePort()), FORJA_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent', DATABASE_URL: '' },
      encoding: 'utf8',
    });
    holder.close();
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include(`forja: cannot start: port ${port} on 127.0.0.1 is already in use`);
  });

  it('says what to install when the PostgreSQL binaries are missing', async () => {
    const error = await startPostgresCluster(join(dir, 'pg'), 'forja', { binDir: join(dir, 'nowhere') }).catch((e: unknown) => e);
    expect((error as Error).message).to.match(/PostgreSQL server binaries not found in .*: install them \(apt-get install postgresql\) or set DATABASE_URL/);
  });

  it('runs npm start on a fresh data folder, prints what it started, and stops cleanly on Ctrl-C', async () => {
    const ports = { FORJA_CONTROL_PLANE_PORT: String(await freePort()), FORJA_WEB_PORT: String(await freePort()), FORJA_PADRON_PORT: String(await freePort()) };
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      env: { ...process.env, ...ports, FORJA_DATA_DIR: join(dir, 'data'), LOG_FORMAT: 'json', DATABASE_URL: '', NATS_URL: '', EVENTSTORE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes('Ctrl-C stops everything') && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(output).to.match(/database +private PostgreSQL on 127\.0\.0\.1:\d+/);
      expect(output).to.match(/projector +\d+ runners: stream_activity, /);
      expect(output).to.match(new RegExp(`control-plane +http://127\\.0\\.0\\.1:${ports.FORJA_CONTROL_PLANE_PORT} `));
      expect(output).to.match(/first admin +created admin@forja\.local with password \S{24} /);
      const health = await fetch(`http://127.0.0.1:${ports.FORJA_CONTROL_PLANE_PORT}/health`);
      expect(health.status).to.equal(200);
      expect(output).to.match(new RegExp(`web +http://127\\.0\\.0\\.1:${ports.FORJA_WEB_PORT} `));
      expect((await fetch(`http://127.0.0.1:${ports.FORJA_WEB_PORT}/login`)).status).to.equal(200);
      expect(existsSync(join(dir, 'data', 'postgres', 'pgdata', 'postmaster.pid'))).to.equal(true);
      child.kill('SIGINT');
      expect(await exited).to.equal(0);
      expect(output).to.include('stopped cleanly');
    } finally {
      // A failed assertion must not leave the platform running after the test.
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    expect(existsSync(join(dir, 'data', 'postgres', 'pgdata', 'postmaster.pid')), 'Postgres stopped').to.equal(false);
  });
});
