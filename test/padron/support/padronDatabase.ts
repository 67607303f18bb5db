import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKysely, createPool, type Pool } from '#shared/db.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { createPgEventStore, migrateEventStore } from '#shared/eventStore/postgres/pgEventStore.ts';
import { silentLogger } from '#shared/log.ts';
import { startPadronService, type PadronService } from '#services/padron/http/server.ts';
import { importPadronFile, type ImportOutcome, type ImportRequest } from '#services/padron/import/importPadron.ts';
import type { PadronLoadedData } from '#services/padron/padron.ts';
import { migratePadron } from '#services/padron/storage/migrations/index.ts';
import { createTestDatabase } from '#test/support/postgres.ts';
import { onTeardown } from '#test/support/teardown.ts';

/** A fresh database with the event store and schema padron, and the import as the CLI runs it. */
export interface PadronDatabase {
  url: string;
  pool: Pool;
  store: EventStore;
  importFile(request: ImportRequest): Promise<ImportOutcome>;
  /** Imports and insists it loaded. */
  load(request: ImportRequest): Promise<PadronLoadedData>;
  close(): Promise<void>;
}

export async function createPadronDatabase(prefix = 'padron'): Promise<PadronDatabase> {
  const url = await createTestDatabase(prefix);
  const pool = createPool(url);
  await migrateEventStore(pool);
  await migratePadron(createKysely<unknown>(pool));
  const store = createPgEventStore({ pool, connectionString: url, pollIntervalMs: 100 });
  const importFile = (request: ImportRequest) => importPadronFile({ pool, store, databaseUrl: url }, request);
  return {
    url,
    pool,
    store,
    importFile,
    async load(request) {
      const outcome = await importFile(request);
      if (outcome.status !== 'loaded') throw new Error(`expected a load, got: ${outcome.message}`);
      return outcome.load;
    },
    async close() {
      await store.close();
      await pool.end();
    },
  };
}

/** The lookup service on 127.0.0.1 and a free port, no rate limit unless asked; its download files in `downloadDir` (a fresh folder by default). */
export function startTestService(
  pool: Pool,
  settings: { limit?: number; windowSeconds?: number; trustedHops?: number; pollMs?: number; downloadDir?: string } = {},
): Promise<PadronService> {
  return startPadronService({
    pool,
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger,
    downloadDir: settings.downloadDir ?? downloadFolder(),
    settings: {
      FORJA_PADRON_RATE_LIMIT: settings.limit ?? 0,
      FORJA_PADRON_RATE_WINDOW_S: settings.windowSeconds ?? 60,
      FORJA_PADRON_TRUST_PROXY: settings.trustedHops ?? 0,
      FORJA_PADRON_POLL_MS: settings.pollMs ?? 60_000,
      // The caps and the send timeout are tested on the process, against stalled sockets (stalledDownloads).
      FORJA_PADRON_DOWNLOADS_MAX: 32,
      FORJA_PADRON_DOWNLOADS_PER_IP: 32,
      FORJA_PADRON_SEND_TIMEOUT_S: 30,
    },
  });
}

/** A fresh folder for a service's download files, removed when the test run ends. */
export function downloadFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'forja-padron-downloads-'));
  onTeardown(async () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
