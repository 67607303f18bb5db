import type { StartProcess } from '#shared/platform/process.ts';
import { startPadronService } from './http/server.ts';
import { loadPadronSettings } from './padron.settings.ts';

/**
 * The padrón lookup service as a Forja process (`npm start`, `npm run padron -- serve`). It only
 * reads schema `padron` (it never migrates it: production gives it a read-only role), and serves
 * no loads until an import created the schema.
 */
export const startPadronProcess: StartProcess = async (infra, config, logger) => {
  // A wrong setting throws ConfigError: the runner stops what it started and reports it.
  const settings = loadPadronSettings();
  const service = await startPadronService({ pool: infra.pool, host: config.FORJA_HOST, port: config.FORJA_PADRON_PORT, settings, logger: logger.child({ process: 'padron' }) });
  return {
    name: 'padron',
    describe: () => {
      const indexes = new Set(service.registry.current.slots.map((slot) => slot.index));
      const rates = [...indexes].reduce((sum, index) => sum + (index?.size ?? 0), 0);
      const limit = settings.FORJA_PADRON_RATE_LIMIT === 0 ? 'no rate limit' : `${settings.FORJA_PADRON_RATE_LIMIT} lookups per IP per ${settings.FORJA_PADRON_RATE_WINDOW_S} s`;
      return [`${service.url}/padron/cuit/{cuit} (docs ${service.url}/docs)`, `${rates.toLocaleString('en-US')} rates in memory, ${limit}`];
    },
    stop: () => service.close(),
  };
};
