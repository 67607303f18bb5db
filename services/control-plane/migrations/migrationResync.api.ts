import type { Request, Response, Router } from 'express';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody, validateSlug } from '../http/validate.ts';
import { commandMetadata } from '../projects/project.api.ts';
import { MIGRATION_READ_MODELS, migrationOr404, migrationOut } from './migrationOut.ts';

/** Resync on the API and for web: the view, and the adopt or keep decision. */
export function migrationResyncApi(router: Router, ctx: ControlPlaneContext): void {
  for (const prefix of ['/api/v1', '/internal']) {
    route(router, ctx, 'GET', `${prefix}/migrations/:slug/resync`, validateSlug, async (req: Request, res: Response) => {
      res.json(await ctx.resync.view(String(req.params['slug'])));
    });
    route(router, ctx, 'POST', `${prefix}/migrations/:slug/resync`, validateSlug, validateBody('api/ResyncDecision.v1.json'), async (req: Request, res: Response) => {
      const slug = String(req.params['slug']);
      const result = await ctx.resync.decide(slug, (req.body as { decision: 'adopt' | 'keep' }).decision, commandMetadata(req, actingUser(res.locals)));
      await ctx.waitForProjections(result.lastGlobalPosition, MIGRATION_READ_MODELS);
      res.json(migrationOut(await migrationOr404(ctx.readModel, slug)));
    });
  }
}
