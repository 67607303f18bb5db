import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Pool } from '#shared/db.ts';
import type { Logger } from '#shared/log.ts';
import type { PadronRegistry } from '../lookup/registry.ts';
import { docsRouter } from './docs.ts';
import { downloadHandler, type DownloadDeps } from './download.ts';
import { healthHandler } from './health.ts';
import type { PadronMetrics, Route } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { sendDetail, sendJson } from './respond.ts';

export interface AppDeps {
  pool: Pool;
  registry: PadronRegistry;
  metrics: PadronMetrics;
  logger: Logger;
  download: DownloadDeps;
}

/** Everything but the two lookups: downloads, docs, health, metrics. Express is fine off the hot path. */
export function createApp({ pool, registry, metrics, logger, download }: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req, res, next) => {
    const started = performance.now();
    const route = routeOf(req.path); // before a router strips its mount path from req.url
    res.on('finish', () => metrics.observe(route, res.statusCode, started));
    next();
  });
  const openApi = JSON.stringify(openApiDocument());
  app.get('/openapi.json', (_req, res) => sendJson(res, 200, openApi));
  app.use(docsRouter());
  app.get('/health', healthHandler(pool, registry));
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.get('/padron/download{/:state}', downloadHandler(download));
  app.use((req, res) => sendDetail(res, 404, `no such resource: ${req.method} ${req.path}`));
  const onError: ErrorRequestHandler = (error: Error & { status?: number }, _req, res, _next) => {
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) logger.error({ err: error }, 'padrón request failed');
    if (res.headersSent) res.destroy();
    else sendDetail(res, status, status === 500 ? 'internal error' : error.message);
  };
  app.use(onError);
  return app;
}

function routeOf(path: string): Route {
  if (path.startsWith('/padron/download')) return 'download';
  if (path.startsWith('/docs')) return 'docs';
  if (path === '/health') return 'health';
  if (path === '/metrics') return 'metrics';
  if (path === '/openapi.json') return 'openapi';
  return 'other';
}
