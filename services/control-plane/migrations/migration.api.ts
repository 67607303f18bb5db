import type { Request, Response, Router } from 'express';
import { RequestValidationError } from '#shared/http/errors.ts';
import { MIGRATION_STATUSES } from '#services/migrations/domain/migration.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody, validateSlug } from '../http/validate.ts';
import { commandMetadata, CONTROL_CHARACTER } from '../projects/project.api.ts';
import { artifactById, listMigrations, MIGRATION_READ_MODELS, migrationOr404, migrationOut, runOr404, runOut, runsOf } from './migrationOut.ts';
import { HttpError } from '#shared/http/errors.ts';
import { pipeline } from 'node:stream/promises';
import type { MigrationCreateInput, MigrationEditInput } from './migrationService.ts';

/** `{number}`: a positive integer, else 422 naming it. */
function runNumber(req: Request): number {
  const raw = String(req.params['number']);
  const number = Number(raw);
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new RequestValidationError([{ loc: ['path', 'number'], msg: 'the run number is a positive integer', type: 'type_error.integer' }]);
  return number;
}

function statusFilter(req: Request): string {
  const value = req.query['status_filter'];
  if (value === undefined || value === '') return '';
  if (typeof value !== 'string' || !(MIGRATION_STATUSES as readonly string[]).includes(value)) {
    throw new RequestValidationError([{ loc: ['query', 'status_filter'], msg: `status_filter must be one of ${MIGRATION_STATUSES.join(', ')}`, type: 'value_error.enum' }]);
  }
  return value;
}

function searchTerm(req: Request): string {
  const value = req.query['search'];
  if (value === undefined) return '';
  if (typeof value !== 'string' || value.length > 200) throw new RequestValidationError([{ loc: ['query', 'search'], msg: 'search is a text of at most 200 characters', type: 'value_error.str' }]);
  if (CONTROL_CHARACTER.test(value)) throw new RequestValidationError([{ loc: ['query', 'search'], msg: 'must not contain control characters (U+0000 to U+001F, U+007F)', type: 'value_error.control_characters' }]);
  return value.trim();
}

/** `/api/v1/migrations`: create, list, read, edit, run and the run actions, runs. */
export function migrationApi(router: Router, ctx: ControlPlaneContext): void {
  const answer = async (res: Response, slug: string, position: number | undefined, status = 200) => {
    await ctx.waitForProjections(position, MIGRATION_READ_MODELS);
    res.status(status).json(migrationOut(await migrationOr404(ctx.readModel, slug)));
  };

  route(router, ctx, 'POST', '/api/v1/migrations', validateBody('api/MigrationCreate.v1.json'), async (req: Request, res: Response) => {
    const input = req.body as MigrationCreateInput;
    if (input.upload) {
      throw new RequestValidationError([{ loc: ['body', 'upload'], msg: 'dumps are uploaded through the web form /migrations/new; the API takes pull_url', type: 'value_error.upload' }]);
    }
    const created = await ctx.migrations.create(input, commandMetadata(req, actingUser(res.locals)));
    res.location(`/api/v1/migrations/${created.slug}`);
    await answer(res, created.slug, created.lastGlobalPosition, 201);
  });

  route(router, ctx, 'GET', '/api/v1/migrations', async (req: Request, res: Response) => {
    const { rows } = await listMigrations(ctx.readModel, { status: statusFilter(req), search: searchTerm(req) });
    res.json(rows.map(migrationOut));
  });

  route(router, ctx, 'GET', '/api/v1/migrations/:slug', validateSlug, async (req: Request, res: Response) => {
    res.json(migrationOut(await migrationOr404(ctx.readModel, String(req.params['slug']))));
  });

  route(router, ctx, 'PATCH', '/api/v1/migrations/:slug', validateSlug, validateBody('api/MigrationEdit.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const edited = await ctx.migrations.edit(slug, req.body as MigrationEditInput, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(edited.lastGlobalPosition, MIGRATION_READ_MODELS);
    res.json({ ...migrationOut(await migrationOr404(ctx.readModel, slug)), ignored: edited.ignored });
  });

  route(router, ctx, 'DELETE', '/api/v1/migrations/:slug', validateSlug, validateBody('api/MigrationDelete.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const deleted = await ctx.migrations.delete(slug, (req.body as { confirm_name: string }).confirm_name, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(deleted.lastGlobalPosition, MIGRATION_READ_MODELS);
    res.status(204).end();
  });

  route(router, ctx, 'POST', '/api/v1/migrations/:slug/run', validateSlug, async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const started = await ctx.migrations.run(slug, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(started.lastGlobalPosition, MIGRATION_READ_MODELS);
    res.status(201).location(`/api/v1/migrations/${slug}/runs/${started.number}`).json(await runOut(ctx.readModel, await runOr404(ctx.readModel, slug, started.number), true));
  });

  route(router, ctx, 'POST', '/api/v1/migrations/:slug/run-anyway', validateSlug, validateBody('api/RunAnyway.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const started = await ctx.migrations.runAnyway(slug, (req.body as { reason: string }).reason, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(started.lastGlobalPosition, MIGRATION_READ_MODELS);
    res.status(201).location(`/api/v1/migrations/${slug}/runs/${started.number}`).json(await runOut(ctx.readModel, await runOr404(ctx.readModel, slug, started.number), true));
  });

  for (const action of ['pause', 'resume', 'stop'] as const) {
    route(router, ctx, 'POST', `/api/v1/migrations/:slug/${action}`, validateSlug, async (req: Request, res: Response) => {
      const slug = String(req.params['slug']);
      const result = await ctx.migrations[action](slug, commandMetadata(req, actingUser(res.locals)));
      await answer(res, slug, result.lastGlobalPosition);
    });
  }

  route(router, ctx, 'GET', '/api/v1/migrations/:slug/runs', validateSlug, async (req: Request, res: Response) => {
    const migration = await migrationOr404(ctx.readModel, String(req.params['slug']));
    const runs = await runsOf(ctx.readModel, migration.slug);
    res.json(await Promise.all(runs.map((run) => runOut(ctx.readModel, run, false))));
  });

  route(router, ctx, 'GET', '/api/v1/migrations/:slug/runs/:number', validateSlug, async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    await migrationOr404(ctx.readModel, slug);
    res.json(await runOut(ctx.readModel, await runOr404(ctx.readModel, slug, runNumber(req)), true));
  });

  route(router, ctx, 'GET', '/api/v1/migrations/:slug/artifacts/:artifact_id', validateSlug, async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const raw = String(req.params['artifact_id']);
    if (!/^[1-9][0-9]{0,11}$/.test(raw)) throw new RequestValidationError([{ loc: ['path', 'artifact_id'], msg: 'the artifact id is a positive integer', type: 'type_error.integer' }]);
    await migrationOr404(ctx.readModel, slug);
    const artifact = await artifactById(ctx.readModel, slug, Number(raw));
    if (!artifact) throw new HttpError(404, `migration ${slug} has no artifact ${raw}`);
    const stored = await ctx.blobs.stat(artifact.key);
    if (!stored) throw new HttpError(404, `artifact ${raw} of ${slug} is no longer stored`);
    res.setHeader('content-type', artifact.name.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/octet-stream');
    res.setHeader('content-length', String(stored.size));
    res.setHeader('content-disposition', `attachment; filename="${artifact.name}"`);
    res.setHeader('x-content-sha256', artifact.sha256);
    await pipeline(await ctx.blobs.get(artifact.key), res);
  });

  route(router, ctx, 'POST', '/api/v1/migrations/:slug/runs/:number/resume', validateSlug, validateBody('api/GateDecision.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const number = runNumber(req);
    const { decision, note } = req.body as { decision: 'approve' | 'reject'; note?: string };
    const result = await ctx.migrations.resolveGate(slug, number, decision === 'approve' ? 'approved' : 'rejected', note, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(result.lastGlobalPosition, MIGRATION_READ_MODELS);
    res.json(await runOut(ctx.readModel, await runOr404(ctx.readModel, slug, number), true));
  });
}
