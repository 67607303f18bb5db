import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from '#shared/db.ts';
import type { Logger } from '#shared/log.ts';
import { PadronRegistry } from '../lookup/registry.ts';
import type { PadronSettings } from '../padron.settings.ts';
import { createApp } from './app.ts';
import { BATCH_PATH, handleBatchLookup } from './batchLookup.ts';
import { DownloadFiles } from './downloadFiles.ts';
import { DownloadSlots } from './downloadSlots.ts';
import type { LookupContext } from './lookupContext.ts';
import { PadronMetrics } from './metrics.ts';
import { FixedWindowRateLimit } from './rateLimit.ts';
import { handleSingleLookup, SINGLE_PREFIX } from './singleLookup.ts';

export interface PadronServiceOptions {
  pool: Pool;
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Where the download files are built (`FORJA_DATA_DIR/padron/downloads`). */
  downloadDir: string;
  settings: Pick<
    PadronSettings,
    | 'FORJA_PADRON_RATE_LIMIT'
    | 'FORJA_PADRON_RATE_WINDOW_S'
    | 'FORJA_PADRON_TRUST_PROXY'
    | 'FORJA_PADRON_POLL_MS'
    | 'FORJA_PADRON_DOWNLOADS_MAX'
    | 'FORJA_PADRON_DOWNLOADS_PER_IP'
    | 'FORJA_PADRON_SEND_TIMEOUT_S'
  >;
  logger: Logger;
}

export interface PadronService {
  url: string;
  port: number;
  registry: PadronRegistry;
  metrics: PadronMetrics;
  close(): Promise<void>;
}

/**
 * The lookup service: one node:http server whose handler sends the two lookups straight to their
 * plain handlers and everything else to express. Indexes today's loads before it listens, so its
 * first answer is already complete.
 */
export async function startPadronService(options: PadronServiceOptions): Promise<PadronService> {
  const { pool, settings, logger } = options;
  const metrics = new PadronMetrics();
  const registry = new PadronRegistry(pool, { pollMs: settings.FORJA_PADRON_POLL_MS, logger, onChange: (view) => metrics.viewChanged(view) });
  const files = new DownloadFiles(pool, options.downloadDir, logger);
  await files.open();
  await registry.start();
  const slots = new DownloadSlots(settings.FORJA_PADRON_DOWNLOADS_MAX, settings.FORJA_PADRON_DOWNLOADS_PER_IP);
  metrics.countDownloads(() => slots.inProgress);
  const context: LookupContext = {
    pool,
    registry,
    metrics,
    rateLimit: new FixedWindowRateLimit(settings.FORJA_PADRON_RATE_LIMIT, settings.FORJA_PADRON_RATE_WINDOW_S),
    trustedHops: settings.FORJA_PADRON_TRUST_PROXY,
    logger,
  };
  const download = { registry, files, slots, trustedHops: settings.FORJA_PADRON_TRUST_PROXY, sendTimeoutMs: settings.FORJA_PADRON_SEND_TIMEOUT_S * 1000, logger };
  const app = createApp({ pool, registry, metrics, logger, download });
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url.startsWith(SINGLE_PREFIX)) handleSingleLookup(req, res, context);
    else if (url === BATCH_PATH || url.startsWith(`${BATCH_PATH}?`)) handleBatchLookup(req, res, context);
    else app(req, res);
  });
  try {
    await listen(server, options.host, options.port);
  } catch (error) {
    registry.stop();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    port,
    registry,
    metrics,
    close: async () => {
      registry.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
