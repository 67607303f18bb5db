import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** A registry with the process metrics and the HTTP request duration histogram. */
export function createMetrics(prefix = 'forja_') {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  const requestDuration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  /** Times every request, labelled by the route pattern (never the raw path, whose ids would explode the series). */
  function measureRequests(req: Request, res: Response, next: NextFunction): void {
    const end = requestDuration.startTimer();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      end({ method: req.method, route: route ? `${req.baseUrl}${route}` : 'unmatched', status: String(res.statusCode) });
    });
    next();
  }

  async function serveMetrics(_req: Request, res: Response): Promise<void> {
    res.set('Content-Type', registry.contentType).send(await registry.metrics());
  }

  return { registry, measureRequests, serveMetrics };
}

export type Metrics = ReturnType<typeof createMetrics>;
