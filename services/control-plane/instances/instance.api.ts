import type { Request, Response, Router } from 'express';
import { allInstances } from '#projections/instances/instanceList.ts';
import { RequestValidationError } from '#shared/http/errors.ts';
import { STAGES, STATUSES, type InstanceAction } from '#services/instances/domain/instance.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody, validateSlug } from '../http/validate.ts';
import { commandMetadata } from '../projects/project.api.ts';
import { INSTANCE_READ_MODELS, instanceDetailOut, instanceOr404, instanceOut } from './instanceOut.ts';
import type { InstanceCreateInput } from './instanceService.ts';

/** A list filter: empty means any; an unknown value is a 422 rather than an empty list. */
function filter(req: Request, name: string, allowed: readonly string[]): string {
  const value = req.query[name];
  if (value === undefined || value === '') return '';
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new RequestValidationError([{ loc: ['query', name], msg: `${name} must be one of ${allowed.join(', ')}`, type: 'value_error.enum' }]);
  }
  return value;
}

/** `/api/v1/instances`: create, list, read, act. */
export function instanceApi(router: Router, ctx: ControlPlaneContext): void {
  route(router, ctx, 'POST', '/api/v1/instances', validateBody('api/InstanceCreate.v1.json'), async (req: Request, res: Response) => {
    const input = req.body as InstanceCreateInput;
    if (input.upload) {
      throw new RequestValidationError([{ loc: ['body', 'upload'], msg: 'dumps are uploaded through the web form /instances/upload', type: 'value_error.upload' }]);
    }
    const created = await ctx.instances.create(input, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(created.lastGlobalPosition, INSTANCE_READ_MODELS);
    const row = await instanceOr404(ctx.readModel, created.slug);
    res.status(201).location(`/api/v1/instances/${created.slug}`).json(await instanceDetailOut(ctx.readModel, row));
  });

  route(router, ctx, 'GET', '/api/v1/instances', async (req: Request, res: Response) => {
    const stage = filter(req, 'stage', STAGES);
    const status = filter(req, 'status_filter', STATUSES);
    const rows = await allInstances(ctx.readModel, { stage, status });
    res.json(rows.map(instanceOut));
  });

  route(router, ctx, 'GET', '/api/v1/instances/:slug', validateSlug, async (req: Request, res: Response) => {
    res.json(await instanceDetailOut(ctx.readModel, await instanceOr404(ctx.readModel, String(req.params['slug']))));
  });

  route(router, ctx, 'POST', '/api/v1/instances/:slug/action', validateSlug, validateBody('api/InstanceAction.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const result = await ctx.instances.action(slug, (req.body as { action: InstanceAction }).action, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(result.lastGlobalPosition, INSTANCE_READ_MODELS);
    res.json(await instanceDetailOut(ctx.readModel, await instanceOr404(ctx.readModel, slug)));
  });
}
