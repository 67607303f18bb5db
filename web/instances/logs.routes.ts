import { pipeline } from 'node:stream/promises';
import type { Request, Response, Router } from 'express';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { instanceLogKey, LOG_SOURCES, type LogSource } from '#shared/blobs/blobKeys.ts';
import { BlobNotFoundError } from '#shared/blobs/blobStore.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { route } from '../http/route.ts';
import { followLog, type LogNotice } from './logFollower.ts';
import { queryString } from './instanceRequest.ts';

const POLL_MS = 500;
const KEEP_ALIVE_MS = 15_000;
const BACKLOG_BYTES = 1024 * 1024;
const PARTIAL_LINE_MS = 2_000;

/** The instance and which of its logs the request names (`source`, default erp); 422 for another source, 404 for an unknown instance. */
async function logOf(ctx: WebContext, req: Request) {
  const source = queryString(req, 'source') || 'erp';
  if (!LOG_SOURCES.includes(source as LogSource)) throw new HttpError(422, `There is no ${source} log: the source is erp (what the ERP writes) or db (what Forja did to its database).`);
  const slug = String(req.params['slug']);
  const instance = await getInstance(ctx.readModel, slug);
  if (!instance) throw new HttpError(404, `There is no instance ${slug}. It may have been purged.`);
  return { instance, source: source as LogSource, key: instanceLogKey(instance.slug, source as LogSource) };
}

/** One notice as Server-Sent Events: each line carries its end offset as `id`, so a reconnect resumes after it. */
function eventOf(notice: LogNotice): string {
  switch (notice.kind) {
    case 'line':
      return `id: ${notice.offset}\ndata: ${notice.text}\n\n`;
    case 'waiting':
      return 'event: waiting\ndata: \n\n';
    case 'skipped':
      return `event: skipped\ndata: ${notice.bytes}\n\n`;
    case 'truncated':
      return 'id: 0\nevent: truncated\ndata: \n\n';
  }
}

/** Writes respecting backpressure: a slow reader slows the follower instead of filling memory. */
function writer(res: Response) {
  return (text: string) =>
    new Promise<void>((resolve) => {
      if (res.write(text) || res.destroyed) return resolve();
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
}

export function logRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/instances/:slug/logs', async (req: Request, res: Response) => {
    const { instance, source } = await logOf(ctx, req);
    render(ctx, req, res, 'instances/logs.njk', { instance, source, sources: LOG_SOURCES });
  });

  route(router, 'GET', '/instances/:slug/logs/stream', async (req: Request, res: Response) => {
    const { key } = await logOf(ctx, req);
    const lastId = req.get('last-event-id') ?? '';
    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    const write = writer(res);
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    const keepAlive = setInterval(() => void write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    try {
      await write('retry: 2000\n\n');
      await followLog({
        blobs: ctx.blobs,
        key,
        from: /^\d{1,15}$/.test(lastId) ? Number(lastId) : undefined,
        backlogBytes: BACKLOG_BYTES,
        pollMs: POLL_MS,
        partialLineMs: PARTIAL_LINE_MS,
        signal: stop.signal,
        send: (notice) => write(eventOf(notice)),
      });
    } catch (error) {
      ctx.logger.error({ err: error, key }, 'log stream failed');
    } finally {
      clearInterval(keepAlive);
      res.end();
    }
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
