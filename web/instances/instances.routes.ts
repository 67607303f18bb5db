import type { Request, Response, Router } from 'express';
import { destroyedInstances, getInstance, isBehind } from '#projections/instances/instanceDetail.ts';
import { jobStepsOf } from '#projections/instances/instanceJobSteps.ts';
import { listInstances } from '#projections/instances/instanceList.ts';
import { ERP_VERSIONS, STAGES, STATUSES } from '#services/instances/domain/instance.ts';
import { roleAtLeast } from '#shared/auth/roles.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { flash, jobFlash, render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { ACTION_DONE, isAction, offeredActions } from './instanceActions.ts';
import { refusalOf } from './instanceForm.ts';
import { instanceFormRoutes } from './instanceForm.routes.ts';
import { actorOf, pageNumber, queryString } from './instanceRequest.ts';
import { sourceText, statusBadge, stepViews } from './instanceView.ts';
import { logRoutes } from './logs.routes.ts';
import { instanceMailRoutes } from './mail/instanceMail.routes.ts';
import { uploadRoutes } from './upload.routes.ts';

const PAGE_SIZE = 20;

/** The list page (or its table for htmx): filters, one page, and for admins the purge button when something is destroyed. */
async function showList(ctx: WebContext, req: Request, res: Response) {
  const filters = { q: queryString(req, 'q').slice(0, 100), stage: queryString(req, 'stage'), status: queryString(req, 'status'), version: queryString(req, 'version') };
  const role = actorOf(res).role;
  const [instances, destroyed] = await Promise.all([
    listInstances(ctx.readModel, { ...filters, page: pageNumber(queryString(req, 'page')), pageSize: PAGE_SIZE }),
    roleAtLeast(role, 'admin') ? destroyedInstances(ctx.readModel) : [],
  ]);
  const filterQuery = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== '')).toString();
  render(
    ctx,
    req,
    res,
    'instances/list.njk',
    {
      filters,
      filtered: filterQuery !== '',
      instances,
      baseQuery: filterQuery ? `${filterQuery}&` : '',
      destroyedCount: destroyed.length,
      canCreate: roleAtLeast(role, 'developer'),
      choices: { stages: STAGES, statuses: STATUSES, versions: ERP_VERSIONS },
    },
    'instances/_table.njk',
  );
}

/** The detail page, or its status block alone for the block's own polling. */
async function showDetail(ctx: WebContext, req: Request, res: Response) {
  const slug = String(req.params['slug']);
  const instance = await getInstance(ctx.readModel, slug);
  if (!instance) throw new HttpError(404, `There is no instance ${slug}. It may have been purged.`);
  const steps = await jobStepsOf(ctx.readModel, instance.job_id);
  const canOperate = roleAtLeast(actorOf(res).role, 'developer');
  render(
    ctx,
    req,
    res,
    'instances/detail.njk',
    {
      instance,
      steps: stepViews(steps, new Date()),
      badge: statusBadge(instance, steps),
      behind: isBehind(instance),
      actions: canOperate ? offeredActions(instance) : [],
      canOperate,
      source: sourceText(instance.source),
    },
    'instances/_statusPoll.njk',
  );
}

export function instanceRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/instances', (req: Request, res: Response) => showList(ctx, req, res));
  // The fixed paths first: `new` and `upload` are not slugs.
  instanceFormRoutes(router, ctx);
  uploadRoutes(router, ctx);

  route(router, 'POST', '/instances/purge', async (req: Request, res: Response) => {
    const { purged } = await ctx.controlPlane.purgeInstances(actorOf(res).user_id);
    flash(req, 'success', purged.length ? `Purged ${purged.length} destroyed instance${purged.length === 1 ? '' : 's'}.` : 'There were no destroyed instances to purge.');
    seeOther(res, '/instances');
  });

  route(router, 'GET', '/instances/:slug', (req: Request, res: Response) => showDetail(ctx, req, res));

  route(router, 'POST', '/instances/:slug/action', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const action = String((req.body as { action?: unknown } | undefined)?.action ?? '');
    try {
      await ctx.controlPlane.instanceAction(actorOf(res).user_id, slug, action);
      if (isAction(action)) jobFlash(req, `${ACTION_DONE[action]} ${slug}: the job is queued.`);
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal.status === 404) throw new HttpError(404, `There is no instance ${slug}. It may have been purged.`);
      flash(req, 'error', `Could not ${isAction(action) ? action : 'do that to'} ${slug}: ${refusal.message}`);
    }
    seeOther(res, `/instances/${slug}`);
  });

  logRoutes(router, ctx);
  instanceMailRoutes(router, ctx);
}
