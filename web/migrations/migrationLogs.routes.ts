import { pipeline } from 'node:stream/promises';
import type { Request, Response, Router } from 'express';
import { getRun } from '#projections/erpMigrations/migrationRuns.ts';
import { BlobNotFoundError } from '#shared/blobs/blobStore.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { route } from '../http/route.ts';
import { followLog, type LogNotice } from '../instances/logFollower.ts';
import { findArtifact, runLogKey } from './migrationArtifacts.ts';
import { migrationOr404, runNumberOf } from './migrationPage.ts';

const POLL_MS = 500;
const KEEP_ALIVE_MS = 15_000;
const BACKLOG_BYTES = 1024 * 1024;
const PARTIAL_LINE_MS = 2_000;

/** The migration and its run the path names; 404 for either unknown. */
async function runOf(ctx: WebContext, req: Request) {
  const slug = String(req.params['slug']);
  const number = runNumberOf(req);
  const migration = await migrationOr404(ctx, slug);
  const run = await getRun(ctx.readModel, slug, number);
  if (!run) throw new HttpError(404, `Migration ${slug} has no run ${number}. Stopping a migration drops its runs.`);
  return { migration, run, key: runLogKey(slug, number) };
}

/** One notice as Server-Sent Events (as the instance log viewer has them): each line carries its end offset as `id`, so a reconnect resumes after it. */
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

/**
 * Sends the blob at `key` as a download. A log not written yet is an empty file; any other file
 * that is not there is a 404.
 */
async function sendBlob(ctx: WebContext, res: Response, key: string, download: { filename: string; type: string; emptyWhenAbsent: boolean }): Promise<void> {
  const blob = await ctx.blobs.get(key).catch((error: unknown) => {
    if (error instanceof BlobNotFoundError) return null;
    throw error;
  });
  if (!blob && !download.emptyWhenAbsent) throw new HttpError(404, 'That file is no longer stored.');
  res.attachment(download.filename).type(download.type);
  if (!blob) return void res.end();
  // A reader that goes away mid-file is no error of ours; the headers are sent, so just drop the connection.
  await pipeline(blob, res).catch((error: unknown) => {
    if (!res.headersSent) throw error;
    res.destroy();
  });
}

export function migrationLogRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/migrations/:slug/runs/:number/logs', async (req: Request, res: Response) => {
    const { migration, run } = await runOf(ctx, req);
    render(ctx, req, res, 'migrations/logs.njk', { migration, run });
  });

  route(router, 'GET', '/migrations/:slug/runs/:number/logs/stream', async (req: Request, res: Response) => {
    const { key } = await runOf(ctx, req);
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

  route(router, 'GET', '/migrations/:slug/runs/:number/logs/download', async (req: Request, res: Response) => {
    const { migration, run, key } = await runOf(ctx, req);
    await sendBlob(ctx, res, key, { filename: `${migration.slug}-run-${run.number}.log`, type: 'text/plain; charset=utf-8', emptyWhenAbsent: true });
  });

  route(router, 'GET', '/migrations/:slug/artifacts/:artifact_id/download', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const raw = String(req.params['artifact_id']);
    await migrationOr404(ctx, slug);
    const artifact = /^[1-9][0-9]{0,11}$/.test(raw) ? await findArtifact(ctx.readModel, slug, Number(raw)) : undefined;
    if (!artifact) throw new HttpError(404, `Migration ${slug} has no artifact ${raw.slice(0, 20)}.`);
    await sendBlob(ctx, res, artifact.key, {
      filename: `${slug}-run-${artifact.run}-${artifact.name}`,
      type: artifact.name.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/octet-stream',
      emptyWhenAbsent: false,
    });
  });
}
