import { randomUUID } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { getProject, type ProjectDetailRow } from '#projections/projects/projectDetail.ts';
import { listProjects, type ProjectListRow } from '#projections/projects/projectList.ts';
import type { UserRow } from '#projections/users/users.ts';
import { roleAtLeast } from '#shared/auth/roles.ts';
import { webhookPath } from '#shared/auth/webhookToken.ts';
import type { EventMetadata } from '#shared/eventStore/eventStore.ts';
import { HttpError, RequestValidationError } from '#shared/http/errors.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody, validateSlug } from '../http/validate.ts';

export const PROJECT_READ_MODELS = ['project_list', 'project_detail'] as const;

// eslint-disable-next-line no-control-regex -- control characters are what it finds
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** Metadata of a command sent by `user` in this request. */
export function commandMetadata(req: Request, user: UserRow): EventMetadata {
  const requestId = req.get('x-request-id') ?? randomUUID();
  return { correlationId: requestId, causationId: requestId, actor: user.user_id, at: new Date().toISOString() };
}

/** ProjectOut; the hook path only for those who may configure a git host with it. */
export function projectOut(ctx: ControlPlaneContext, row: ProjectDetailRow | ProjectListRow, user: UserRow) {
  return {
    slug: row.slug,
    name: row.name,
    git_repo: row.git_repo,
    created_at: row.created_at.toISOString(),
    ...('updated_at' in row ? { updated_at: row.updated_at.toISOString() } : {}),
    ...(roleAtLeast(user.role, 'developer') ? { webhook_path: webhookPath(ctx.secrets.webhookSecret, row.slug, row.webhook_nonce) } : {}),
  };
}

async function projectOr404(ctx: ControlPlaneContext, slug: string): Promise<ProjectDetailRow> {
  const project = await getProject(ctx.readModel, slug);
  if (!project) throw new HttpError(404, `no project ${slug}`);
  return project;
}

/** `/api/v1/projects`: list, create, read, set the repository, rotate the push hook token. */
export function projectApi(router: Router, ctx: ControlPlaneContext): void {
  route(router, ctx, 'GET', '/api/v1/projects', async (req: Request, res: Response) => {
    const q = typeof req.query['q'] === 'string' ? req.query['q'] : '';
    // PostgreSQL refuses U+0000 in a query parameter: a 500 otherwise.
    if (CONTROL_CHARACTER.test(q)) throw new RequestValidationError([{ loc: ['query', 'q'], msg: 'must not contain control characters (U+0000 to U+001F, U+007F)', type: 'value_error.control_characters' }]);
    const { rows } = await listProjects(ctx.readModel, { q, pageSize: 1000 });
    res.json(rows.map((row) => projectOut(ctx, row, actingUser(res.locals))));
  });

  route(router, ctx, 'POST', '/api/v1/projects', validateBody('api/ProjectCreate.v1.json'), async (req: Request, res: Response) => {
    const user = actingUser(res.locals);
    const created = await ctx.projects.create((req.body as { name: string }).name, commandMetadata(req, user));
    await ctx.waitForProjections(created.lastGlobalPosition, PROJECT_READ_MODELS);
    res.status(201).location(`/api/v1/projects/${created.slug}`).json(projectOut(ctx, await projectOr404(ctx, created.slug), user));
  });

  route(router, ctx, 'GET', '/api/v1/projects/:slug', validateSlug, async (req: Request, res: Response) => {
    res.json(projectOut(ctx, await projectOr404(ctx, String(req.params['slug'])), actingUser(res.locals)));
  });

  route(router, ctx, 'PUT', '/api/v1/projects/:slug/repository', validateSlug, validateBody('api/ProjectRepository.v1.json'), async (req: Request, res: Response) => {
    const user = actingUser(res.locals);
    const slug = String(req.params['slug']);
    const result = await ctx.projects.setRepository(slug, (req.body as { git_repo: string }).git_repo, commandMetadata(req, user));
    await ctx.waitForProjections(result.lastGlobalPosition, PROJECT_READ_MODELS);
    res.json(projectOut(ctx, await projectOr404(ctx, slug), user));
  });

  route(router, ctx, 'POST', '/api/v1/projects/:slug/webhook/rotate', validateSlug, async (req: Request, res: Response) => {
    const user = actingUser(res.locals);
    const slug = String(req.params['slug']);
    const result = await ctx.projects.rotateWebhook(slug, commandMetadata(req, user));
    // Once this answers, the hook guard (which reads project_detail) refuses the old token.
    await ctx.waitForProjections(result.lastGlobalPosition, PROJECT_READ_MODELS);
    res.json(projectOut(ctx, await projectOr404(ctx, slug), user));
  });
}
