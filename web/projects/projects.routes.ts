import type { Request, Response, Router } from 'express';
import { listInstances } from '#projections/instances/instanceList.ts';
import { getProject } from '#projections/projects/projectDetail.ts';
import { listProjects } from '#projections/projects/projectList.ts';
import { roleAtLeast, type Role } from '#shared/auth/roles.ts';
import { webhookPath } from '#shared/auth/webhookToken.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { CommandRefused } from '../controlPlaneClient.ts';
import { flash, render, seeOther } from '../http/render.ts';
import { route } from '../http/route.ts';
import { projectKeyRoutes, projectKeysView } from './projectKeys.routes.ts';

const PAGE_SIZE = 20;

const userOf = (res: Response) => res.locals['user'] as { user_id: string; role: Role };

function pageNumber(value: unknown): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** Shows the list page (or its table for htmx), with `form` holding a refused create's input and error. */
async function showList(ctx: WebContext, req: Request, res: Response, form: { name?: string; error?: string } = {}) {
  // No name holds control characters, and PostgreSQL refuses U+0000 in a parameter: search without them.
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  const q = typeof req.query['q'] === 'string' ? req.query['q'].replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 100) : '';
  const projects = await listProjects(ctx.readModel, { q, page: pageNumber(req.query['page']), pageSize: PAGE_SIZE });
  render(ctx, req, res, 'projects/list.njk', { q, projects, form, canCreate: roleAtLeast(userOf(res).role, 'developer') }, 'projects/_table.njk');
}

async function showDetail(ctx: WebContext, req: Request, res: Response, forms: Record<string, { value?: string; error?: string }> = {}, extra: Record<string, unknown> = {}) {
  const slug = String(req.params['slug']);
  const project = await getProject(ctx.readModel, slug);
  if (!project) throw new HttpError(404, `There is no project ${slug}. It may have been deleted.`);
  const role = userOf(res).role;
  const instances = await listInstances(ctx.readModel, { project: slug, pageSize: 50 });
  // A refused form re-renders the page at the form's URL; htmx would push that URL, which has no GET.
  if (Object.keys(forms).length > 0 || Object.keys(extra).length > 0) res.set('HX-Push-Url', `/projects/${slug}`);
  render(ctx, req, res, 'projects/detail.njk', {
    project,
    instances,
    forms,
    canEdit: roleAtLeast(role, 'developer'),
    canDelete: roleAtLeast(role, 'admin'),
    hookUrl: roleAtLeast(role, 'developer') ? `${ctx.hookBaseUrl}${webhookPath(ctx.webhookSecret, slug, project.webhook_nonce)}` : undefined,
    ...(await projectKeysView(ctx, slug, role)),
    ...extra,
  });
}

/** Re-renders a form with the control-plane's reason when it refused; anything else is a real error. */
function refused(error: unknown): CommandRefused {
  if (error instanceof CommandRefused && [404, 409, 422].includes(error.status)) return error;
  throw error;
}

export function projectRoutes(router: Router, ctx: WebContext): void {
  route(router, 'GET', '/', (req: Request, res: Response) => showList(ctx, req, res));
  route(router, 'GET', '/projects', (req: Request, res: Response) => showList(ctx, req, res));

  route(router, 'POST', '/projects', async (req: Request, res: Response) => {
    const name = String((req.body as { name?: string }).name ?? '');
    try {
      const created = await ctx.controlPlane.createProject(userOf(res).user_id, name);
      flash(req, 'success', `Project ${created.name} created.`);
      seeOther(res, `/projects/${created.slug}`);
    } catch (error) {
      const why = refused(error);
      res.status(422);
      await showList(ctx, req, res, { name, error: why.messageFor('name') ?? why.message });
    }
  });

  route(router, 'GET', '/projects/:slug', (req: Request, res: Response) => showDetail(ctx, req, res));
  projectKeyRoutes(router, ctx, (req, res, forms, extra) => showDetail(ctx, req, res, forms, extra));

  route(router, 'POST', '/projects/:slug/repo', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const gitRepo = String((req.body as { git_repo?: string }).git_repo ?? '').trim();
    try {
      await ctx.controlPlane.setRepository(userOf(res).user_id, slug, gitRepo);
      flash(req, 'success', 'Repository saved. New instances will use it.');
      seeOther(res, `/projects/${slug}`);
    } catch (error) {
      const why = refused(error);
      res.status(why.status === 404 ? 404 : 422);
      await showDetail(ctx, req, res, { repo: { value: gitRepo, error: why.messageFor('git_repo') ?? why.message } });
    }
  });

  route(router, 'POST', '/projects/:slug/webhook/rotate', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    try {
      await ctx.controlPlane.rotateWebhook(userOf(res).user_id, slug);
      flash(req, 'success', 'New push hook URL: put it in the git host’s webhook settings; the old one is refused from now on.');
      seeOther(res, `/projects/${slug}`);
    } catch (error) {
      const why = refused(error);
      res.status(why.status);
      await showDetail(ctx, req, res, { hook: { error: why.message } });
    }
  });

  route(router, 'POST', '/projects/:slug/delete', async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const confirmName = String((req.body as { confirm_name?: string }).confirm_name ?? '');
    try {
      const { destroyed } = await ctx.controlPlane.deleteProject(userOf(res).user_id, slug, confirmName);
      flash(req, 'success', destroyed.length ? `Project deleted; its ${destroyed.length} instance(s) are being destroyed.` : 'Project deleted.');
      seeOther(res, '/projects');
    } catch (error) {
      const why = refused(error);
      res.status(why.status === 404 ? 404 : 422);
      await showDetail(ctx, req, res, { delete: { value: confirmName, error: why.messageFor('confirm_name') ?? why.message } });
    }
  });
}
