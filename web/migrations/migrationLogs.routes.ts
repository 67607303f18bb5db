import { pipeline } from 'node:stream/promises';
import type { Request, Response, Router } from 'express';
import { getRun } from '#projections/erpMigrations/migrationRuns.ts';
import { BlobNotFoundError } from '#shared/blobs/blobStore.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { streamLog } from '../http/logStream.ts';
import { route } from '../http/route.ts';
import { findArtifact, runLogKey } from './migrationArtifacts.ts';
import { migrationOr404, runNumberOf } from './migrationPage.ts';


/** The migration and its run the path names; 404 for either unknown. */
async function runOf(ctx: WebContext, req: Request) {
  const slug = String(req.params['slug']);
  const number = runNumberOf(req);
  const migration = await migrationOr404(ctx, slug);
  const run = await getRun(ctx.readModel, slug, number);
  if (!run) throw new HttpError(404, `Migration ${slug} has no run ${number}. Stopping a migration drops its runs.`);
  return { migration, run, key: runLogKey(slug, number) };
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
    await streamLog(ctx, req, res, key);
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
