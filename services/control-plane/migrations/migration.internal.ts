import type { Request, Response, Router } from 'express';
import { uploadKeys } from '#shared/blobs/blobKeys.ts';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import { RequestValidationError } from '#shared/http/errors.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody, validateSlug } from '../http/validate.ts';
import { commandMetadata } from '../projects/project.api.ts';
import { MIGRATION_READ_MODELS, migrationOr404, migrationOut, runOr404, runOut } from './migrationOut.ts';
import type { MigrationCreateInput, MigrationEditInput, MigrationUploadInput } from './migrationService.ts';

/** `{number}`: a positive integer, else 422 naming it. */
function runNumber(req: Request): number {
  const raw = String(req.params['number']);
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new RequestValidationError([{ loc: ['path', 'number'], msg: 'the run number is a positive integer', type: 'type_error.integer' }]);
  return Number(raw);
}

/**
 * The files an upload names must be stored, the dump at the size web reported, before a migration
 * relies on them: a run would otherwise fail only when it fetches.
 */
async function checkUploadStored(blobs: BlobStore, upload: MigrationUploadInput | undefined): Promise<void> {
  if (!upload) return;
  const keys = uploadKeys(upload.upload_id);
  const refuse = (field: string, msg: string) => new RequestValidationError([{ loc: ['body', 'upload', field], msg, type: 'value_error.upload' }]);
  const dump = await blobs.stat(keys.dump);
  if (!dump) throw refuse('upload_id', 'no uploaded dump is stored under this upload_id');
  if (dump.size !== upload.bytes) throw refuse('bytes', `the stored dump has ${dump.size} bytes, not ${upload.bytes}`);
  const filestore = await blobs.stat(keys.filestore);
  if (upload.filestore_name !== null && !filestore) throw refuse('filestore_name', 'no filestore archive is stored under this upload_id');
  if (upload.filestore_name === null && filestore) throw refuse('filestore_name', 'a filestore archive is stored under this upload_id: name it');
}

/**
 * Migration commands for web, acting for the signed-in user: the JSON API's, as POSTs (edit and
 * delete included). Each answers once the read model shows the change, so the page web renders
 * next already has it.
 */
export function migrationInternal(router: Router, ctx: ControlPlaneContext): void {
  const metadataOf = (req: Request, res: Response) => commandMetadata(req, actingUser(res.locals));
  const answer = async (res: Response, slug: string, position: number | undefined, status = 200) => {
    await ctx.waitForProjections(position, MIGRATION_READ_MODELS);
    res.status(status).json(migrationOut(await migrationOr404(ctx.readModel, slug)));
  };
  const answerRun = async (res: Response, slug: string, started: { number: number; lastGlobalPosition: number | undefined }, status = 201) => {
    await ctx.waitForProjections(started.lastGlobalPosition, MIGRATION_READ_MODELS);
    res.status(status).json(await runOut(ctx.readModel, await runOr404(ctx.readModel, slug, started.number), false));
  };

  route(router, ctx, 'POST', '/internal/migrations', validateBody('api/MigrationCreate.v1.json'), async (req: Request, res: Response) => {
    const input = req.body as MigrationCreateInput;
    if (!input.pull_url) await checkUploadStored(ctx.blobs, input.upload);
    const created = await ctx.migrations.create(input, metadataOf(req, res));
    await answer(res, created.slug, created.lastGlobalPosition, 201);
  });

  route(router, ctx, 'POST', '/internal/migrations/:slug/edit', validateSlug, validateBody('api/MigrationEdit.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const edited = await ctx.migrations.edit(slug, req.body as MigrationEditInput, metadataOf(req, res));
    await ctx.waitForProjections(edited.lastGlobalPosition, MIGRATION_READ_MODELS);
    res.json({ ...migrationOut(await migrationOr404(ctx.readModel, slug)), ignored: edited.ignored });
  });

  route(router, ctx, 'POST', '/internal/migrations/:slug/run', validateSlug, async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    await answerRun(res, slug, await ctx.migrations.run(slug, metadataOf(req, res)));
  });

  route(router, ctx, 'POST', '/internal/migrations/:slug/run-anyway', validateSlug, validateBody('api/RunAnyway.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    await answerRun(res, slug, await ctx.migrations.runAnyway(slug, (req.body as { reason: string }).reason, metadataOf(req, res)));
  });

  for (const action of ['pause', 'resume', 'stop'] as const) {
    route(router, ctx, 'POST', `/internal/migrations/:slug/${action}`, validateSlug, async (req: Request, res: Response) => {
      const slug = String(req.params['slug']);
      const result = await ctx.migrations[action](slug, metadataOf(req, res));
      await answer(res, slug, result.lastGlobalPosition);
    });
  }

  route(router, ctx, 'POST', '/internal/migrations/:slug/runs/:number/resume', validateSlug, validateBody('api/GateDecision.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const number = runNumber(req);
    const { decision, note } = req.body as { decision: 'approve' | 'reject'; note?: string };
    const result = await ctx.migrations.resolveGate(slug, number, decision === 'approve' ? 'approved' : 'rejected', note, metadataOf(req, res));
    await answerRun(res, slug, { number, lastGlobalPosition: result.lastGlobalPosition }, 200);
  });

  route(router, ctx, 'POST', '/internal/migrations/:slug/delete', validateSlug, validateBody('api/MigrationDelete.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const deleted = await ctx.migrations.delete(slug, (req.body as { confirm_name: string }).confirm_name, metadataOf(req, res));
    await ctx.waitForProjections(deleted.lastGlobalPosition, MIGRATION_READ_MODELS);
    res.json({ slug, deleted: true });
  });
}
