import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { freePort } from '#shared/local/freePort.ts';
import { startPostgresCluster, type PostgresCluster } from '#shared/local/postgresCluster.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';

/** `npm run padron -- serve` as a child, on `databaseUrl` only: nothing of the caller's environment decides where. */
async function serve(databaseUrl: string, dataDir: string, extraEnv: Record<string, string> = {}) {
  const port = await freePort();
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(FORJA_|DATABASE_URL$|EVENTSTORE_URL$|NATS_URL$)/.test(name)));
  const env = { ...inherited, DATABASE_URL: databaseUrl, FORJA_DATA_DIR: dataDir, FORJA_PADRON_PORT: String(port), FORJA_PADRON_POLL_MS: '200', LOG_LEVEL: 'warn', ...extraEnv };
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/padron/cli.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitUntil(() => output.includes('forja padron is running') || child.exitCode !== null, 'the padrón service to start', 30_000);
  if (!output.includes('forja padron is running')) throw new Error(`padron serve did not start:\n${output}`);
  return { child, url: `http://127.0.0.1:${port}` };
}

function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** What every lookup answers while nothing was imported: 200 with no rates, as before the schema existed. */
async function expectEmptyAnswers(url: string): Promise<void> {
  for (const path of ['/padron/cuit/30-71228143-6', '/padron/cuit/30712281436?state=B&regime=P&date=2026-11-01']) {
    const response = await fetch(`${url}${path}`);
    expect(response.status, path).to.equal(200);
    expect(await response.json()).to.deep.equal({ cuit: '30712281436', results: [] });
  }
  const batch = await fetch(`${url}/padron/cuits`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cuits: ['30-71228143-6', 'bad'] }) });
  expect(batch.status).to.equal(200);
  expect(await batch.json()).to.deep.equal({ results: { '30712281436': [] }, invalid: ['bad'] });
  expect((await fetch(`${url}/padron/download/B`)).status).to.equal(200);
  expect(await (await fetch(`${url}/health`)).json()).to.deep.equal({ status: 'ok', rows: {}, check_digit_warnings: {} });
}

async function schemaExists(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client(databaseUrl);
  await client.connect();
  try {
    const { rows } = await client.query<{ exists: boolean }>("select to_regnamespace('padron') is not null as exists");
    return rows[0]?.exists === true;
  } finally {
    await client.end();
  }
}

describe('padrón service on a registry nothing was imported into', function () {
  this.timeout(120_000);
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'forja-padron-empty-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  describe('on a fresh private cluster', () => {
    let clusterDir: string;
    let cluster: PostgresCluster;
    before(async () => {
      clusterDir = runDir('padron-quiet');
      cluster = await startPostgresCluster(clusterDir, 'forja');
    });
    after(() => cluster.stop());

    it('creates schema padron at start, answers with no rates, and polls without an ERROR in PostgreSQL’s log', async () => {
      const { child, url } = await serve(cluster.url, dataDir);
      const observer = new pg.Client(cluster.url);
      await observer.connect();
      try {
        expect(await schemaExists(cluster.url)).to.equal(true);
        await expectEmptyAnswers(url);
        // Each catalog poll leaves its backend idle with a new state_change: fifty of them is ~10 s at 200 ms.
        const polls = new Set<string>();
        await waitUntil(
          async () => {
            const { rows } = await observer.query<{ poll: string }>(
              `select pid || '@' || state_change as poll from pg_stat_activity where pid <> pg_backend_pid() and query like '%from padron.loads where status%'`,
            );
            for (const { poll } of rows) polls.add(poll);
            return polls.size >= 50;
          },
          'fifty polls of padron.loads',
          30_000,
        );
      } finally {
        await observer.end();
        expect(await stop(child)).to.equal(0);
      }
      const errors = readFileSync(join(clusterDir, 'postgres.log'), 'utf8')
        .split('\n')
        .filter((line) => /\b(ERROR|FATAL|PANIC):/.test(line));
      expect(errors).to.deep.equal([]);
    });
  });

  it('leaves the schema to the importer when FORJA_PADRON_READ_ONLY says its role may only read', async () => {
    const databaseUrl = await createTestDatabase('padron_read_only');
    const { child, url } = await serve(databaseUrl, dataDir, { FORJA_PADRON_READ_ONLY: 'true' });
    try {
      expect(await schemaExists(databaseUrl)).to.equal(false);
      await expectEmptyAnswers(url);
    } finally {
      expect(await stop(child)).to.equal(0);
    }
  });
});
