import type { Request, Response, Router } from 'express';
import { roleAtLeast } from '#shared/auth/roles.ts';
import { HttpError } from '#shared/http/errors.ts';
import { CommandRefused } from '../controlPlaneClient.ts';
import type { WebContext } from '../context.ts';
import { flash, render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { actorOf } from '../instances/instanceRequest.ts';

const CHANGE_TEXT = { added: 'added', removed: 'removed', changed: 'changed', same: 'unchanged' } as const;

/** Resync: the difference between the migration's recipe copy and the current recipe, and the adopt/keep decision. */
export function migrationResyncRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/migrations/:slug/resync', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const resync = await ctx.controlPlane.migrationResync(actorOf(res).user_id, slug).catch((error: unknown) => {
      if (error instanceof CommandRefused && (error.status === 404 || error.status === 422)) throw new HttpError(404, `There is no migration ${slug}.`);
      throw error;
    });
    const differing = resync.steps.filter((row) => row.change !== 'same');
    render(ctx, req, res, 'migrations/resync.njk', { resync, differing, changeText: CHANGE_TEXT, canDecide: roleAtLeast(actorOf(res).role, 'developer') });
  });

  route(router, 'POST', '/migrations/:slug/resync', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const decision = (req.body as Record<string, unknown>)['decision'];
    if (decision !== 'adopt' && decision !== 'keep') {
      flash(req, 'error', 'Choose adopt or keep.');
      return seeOther(res, `/migrations/${slug}/resync`);
    }
    try {
      await ctx.controlPlane.resyncMigration(actorOf(res).user_id, slug, decision);
      flash(req, 'success', decision === 'adopt' ? 'The migration now follows the current recipe: its next run takes the new plan (a resume keeps the unchanged steps before the first change).' : 'Kept the recipe copy as it was; the decision is recorded.');
      seeOther(res, `/migrations/${slug}`);
    } catch (error) {
      if (!(error instanceof CommandRefused) || ![404, 409, 422].includes(error.status)) throw error;
      if (error.status === 404) throw new HttpError(404, `There is no migration ${slug}.`);
      flash(req, 'error', error.message);
      seeOther(res, `/migrations/${slug}/resync`);
    }
  });
}
