import type { Request, Response, Router } from 'express';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { route } from '../http/route.ts';
import { instanceGraphs, rangeOf, RANGES } from './instanceGraphs.ts';
import type { PrometheusEndpoint } from './prometheusQuery.ts';

/**
 * `GET /instances/{slug}/monitoring`: the instance's graphs, drawn on the server from Prometheus'
 * query API. `prometheus` is where web reaches Prometheus (its /monitoring prefix included) and
 * the secret it asks for; undefined when monitoring is off.
 */
export function monitoringRoutes(router: Router, ctx: WebContext, prometheus: PrometheusEndpoint | undefined): void {
  route(router, 'GET', '/instances/:slug/monitoring', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const instance = await getInstance(ctx.readModel, slug);
    if (!instance) throw new HttpError(404, `There is no instance ${slug}. It may have been purged.`);
    const range = rangeOf(req.query['range']);
    const page = await instanceGraphs(prometheus, instance.slug, range);
    if (page.state === 'unavailable') ctx.logger.warn({ reason: page.reason, instance: slug }, 'monitoring page without graphs');
    render(ctx, req, res, 'instances/monitoring.njk', { instance, page, range, ranges: Object.keys(RANGES) });
  });
}
