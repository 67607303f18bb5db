import type { Request, Response, Router } from 'express';
import type { ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateSlug } from '../http/validate.ts';
import { migrationOr404, runsOf } from './migrationOut.ts';
import { readinessOf } from '#services/migrations/report/readinessOf.ts';

/** `GET …/migrations/{slug}/readiness`: per hop, where each installed module comes from and what it means for the run. */
export function migrationReadinessApi(router: Router, ctx: ControlPlaneContext): void {
  for (const prefix of ['/api/v1', '/internal']) {
    route(router, ctx, 'GET', `${prefix}/migrations/:slug/readiness`, validateSlug, async (req: Request, res: Response) => {
      const slug = String(req.params['slug']);
      await migrationOr404(ctx.readModel, slug);
      const runs = (await runsOf(ctx.readModel, slug)).map((run) => run.number).sort((a, b) => b - a);
      res.json(await readinessOf(ctx.blobs, slug, runs));
    });
  }
}
