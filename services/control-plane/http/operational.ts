import type { Request, Response, Router } from 'express';
import { sql } from 'kysely';
import { Gauge, Histogram } from 'prom-client';
import { apiDocs } from '#shared/http/apiDocs.ts';
import type { ControlPlaneContext } from '../context.ts';
import { route } from './route.ts';
import { openApiDocument } from './openapi.ts';

const HEALTH_TIMEOUT_MS = 2000;

/** `/health`, `/metrics`, `/openapi.json`, `/docs`. */
export function operational(router: Router, ctx: ControlPlaneContext): void {
  route(router, ctx, 'GET', '/health', async (_req: Request, res: Response) => {
    const answered = await Promise.race([
      sql`select 1`.execute(ctx.db).then(() => true, () => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS).unref()),
    ]);
    res.status(answered ? 200 : 503).json({ status: answered ? 'ok' : 'unavailable' });
  });

  new Gauge({
    name: 'forja_projector_lag_events',
    help: 'Events in the feed that each projection or reactor has not processed yet',
    labelNames: ['runner'] as const,
    registers: [ctx.metrics.registry],
    async collect() {
      const head = await ctx.store.headPosition();
      const rows = await ctx.readModel.selectFrom('checkpoints').select(['name', 'position']).execute();
      for (const row of rows) this.set({ runner: row.name }, Math.max(0, head - row.position));
    },
  });
  route(router, ctx, 'GET', '/metrics', ctx.metrics.serveMetrics);

  const document = openApiDocument();
  route(router, ctx, 'GET', '/openapi.json', (_req: Request, res: Response) => void res.json(document));
  const docs = apiDocs('Forja control-plane API', '/openapi.json');
  route(router, ctx, 'GET', '/docs', docs.page);
  route(router, ctx, 'GET', '/docs/assets/:file', docs.asset);
}

/** Wraps an event store so every append is timed into `forja_event_store_append_seconds`. */
export function appendDurationHistogram(ctx: Pick<ControlPlaneContext, 'metrics'>) {
  return new Histogram({
    name: 'forja_event_store_append_seconds',
    help: 'Duration of event store appends',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [ctx.metrics.registry],
  });
}
