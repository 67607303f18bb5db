import { join } from 'node:path';
import { createPool } from '#shared/db.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { startPadronService } from './http/server.ts';
import { loadPadronSettings } from './padron.settings.ts';
import { migratePadron } from './storage/migrations/index.ts';

/**
 * The padrón lookup service as a Forja process (`npm start`, `npm run padron -- serve`). It only
 * reads the loads and rates in schema `padron`, which the importer writes.
 */
export const startPadronProcess: StartProcess = async (infra, config, logger) => {
  // A wrong setting throws ConfigError: the runner stops what it started and reports it.
  const settings = loadPadronSettings();
  // The schema must exist before the first poll, or every poll is an ERROR line in PostgreSQL's
  // log until something is imported. Migrating here, like every process migrates the schemas it
  // reads, covers both ways of starting the service (start.ts alone would leave `serve` and its
  // container out). A deployment that gives the service a read-only role opts out, and the
  // importer creates the schema as before.
  if (!settings.FORJA_PADRON_READ_ONLY) await migratePadron(infra.db);
  // Its own pool: an anonymous public service must not be able to take the connections that
  // login, /health and the API of the other processes share under `npm start` (issue 10, item 4).
  const pool = createPool(infra.databaseUrl, { max: settings.FORJA_PADRON_POOL_MAX, applicationName: 'forja-padron' });
  let service;
  try {
    service = await startPadronService({
      pool,
      host: config.FORJA_HOST,
      port: config.FORJA_PADRON_PORT,
      downloadDir: join(config.FORJA_DATA_DIR, 'padron', 'downloads'),
      settings,
      logger: logger.child({ process: 'padron' }),
    });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    name: 'padron',
    describe: () => {
      const indexes = new Set(service.registry.current.slots.map((slot) => slot.index));
      const rates = [...indexes].reduce((sum, index) => sum + (index?.size ?? 0), 0);
      const limit = settings.FORJA_PADRON_RATE_LIMIT === 0 ? 'no rate limit' : `${settings.FORJA_PADRON_RATE_LIMIT} lookups per IP per ${settings.FORJA_PADRON_RATE_WINDOW_S} s`;
      return [`${service.url}/padron/cuit/{cuit} (docs ${service.url}/docs)`, `${rates.toLocaleString('en-US')} rates in memory, ${limit}`];
    },
    stop: async () => {
      await service.close();
      await pool.end();
    },
  };
};
