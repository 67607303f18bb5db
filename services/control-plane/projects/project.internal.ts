import type { Request, Response, Router } from 'express';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody, validateSlug } from '../http/validate.ts';
import { commandMetadata, PROJECT_READ_MODELS } from './project.api.ts';

/**
 * Project commands for web, acting for the signed-in user. Each answers once the project read
 * models show the change, so the page web renders next already has it.
 */
export function projectInternal(router: Router, ctx: ControlPlaneContext): void {
  route(router, ctx, 'POST', '/internal/projects', validateBody('api/ProjectCreate.v1.json'), async (req: Request, res: Response) => {
    const created = await ctx.projects.create((req.body as { name: string }).name, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(created.lastGlobalPosition, PROJECT_READ_MODELS);
    res.status(201).json({ slug: created.slug, name: created.name });
  });

  route(router, ctx, 'POST', '/internal/projects/:slug/repository', validateSlug, validateBody('api/ProjectRepository.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const result = await ctx.projects.setRepository(slug, (req.body as { git_repo: string }).git_repo, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(result.lastGlobalPosition, PROJECT_READ_MODELS);
    res.json({ slug });
  });

  route(router, ctx, 'POST', '/internal/projects/:slug/webhook/rotate', validateSlug, async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const result = await ctx.projects.rotateWebhook(slug, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(result.lastGlobalPosition, PROJECT_READ_MODELS);
    res.json({ slug });
  });

  route(router, ctx, 'POST', '/internal/projects/:slug/delete', validateSlug, validateBody('api/ProjectDelete.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const metadata = commandMetadata(req, actingUser(res.locals));
    const result = await ctx.projects.delete(slug, (req.body as { confirm_name: string }).confirm_name, metadata);
    // Its instances go with it: each gets a destroy job (server, database and files removed).
    const instances = await ctx.instances.destroyProjectInstances(slug, metadata);
    await ctx.waitForProjections(instances.lastGlobalPosition ?? result.lastGlobalPosition, [...PROJECT_READ_MODELS, 'instance_list', 'instance_detail']);
    res.json({ slug, deleted: true, destroyed: instances.destroyed });
  });
}
