import { pipeline } from 'node:stream/promises';
import type { Request, Response, Router } from 'express';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { instanceLogKey, LOG_SOURCES, type LogSource } from '#shared/blobs/blobKeys.ts';
import { BlobNotFoundError } from '#shared/blobs/blobStore.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { streamLog } from '../http/logStream.ts';
import { route } from '../http/route.ts';
import { queryString } from './instanceRequest.ts';


/** The instance and which of its logs the request names (`source`, default erp); 422 for another source, 404 for an unknown instance. */
async function logOf(ctx: WebContext, req: Request) {
  const source = queryString(req, 'source') || 'erp';
  if (!LOG_SOURCES.includes(source as LogSource)) throw new HttpError(422, `There is no ${source} log: the source is erp (what the ERP writes) or db (what Forja did to its database).`);
  const slug = String(req.params['slug']);
  const instance = await getInstance(ctx.readModel, slug);
  if (!instance) throw new HttpError(404, `There is no instance ${slug}. It may have been purged.`);
  return { instance, source: source as LogSource, key: instanceLogKey(instance.slug, source as LogSource) };
}

export function logRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/instances/:slug/logs', async (req: Request, res: Response) => {
    const { instance, source } = await logOf(ctx, req);
    render(ctx, req, res, 'instances/logs.njk', { instance, source, sources: LOG_SOURCES });
  });

  route(router, 'GET', '/instances/:slug/logs/stream', async (req: Request, res: Response) => {
    const { key } = await logOf(ctx, req);
    await streamLog(ctx, req, res, key);
  });

  route(router, 'GET', '/instances/:slug/logs/download', async (req: Request, res: Response) => {
    const { instance, source, key } = await logOf(ctx, req);
    res.attachment(`${instance.slug}-${source}.log`).type('text/plain; charset=utf-8');
    const log = await ctx.blobs.get(key).catch((error: unknown) => {
      if (error instanceof BlobNotFoundError) return null;
      throw error;
    });
    if (!log) return void res.end();
    // A reader that goes away mid-file is no error of ours; the headers are sent, so just drop the connection.
    await pipeline(log, res).catch((error: unknown) => {
      if (!res.headersSent) throw error;
      res.destroy();
    });
  });
}
