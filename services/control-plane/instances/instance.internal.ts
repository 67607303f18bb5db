import type { Request, Response, Router } from 'express';
import type { InstanceAction, ShellCloseReason, ShellRuntime } from '#services/instances/domain/instance.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateBody, validateSlug } from '../http/validate.ts';
import { commandMetadata } from '../projects/project.api.ts';
import { INSTANCE_READ_MODELS, instanceDetailOut, instanceOr404 } from './instanceOut.ts';
import type { InstanceCreateInput } from './instanceService.ts';

/** Instance commands for web, acting for the signed-in user; each answers once the read models show it. */
export function instanceInternal(router: Router, ctx: ControlPlaneContext): void {
  route(router, ctx, 'POST', '/internal/instances', validateBody('api/InstanceCreate.v1.json'), async (req: Request, res: Response) => {
    const created = await ctx.instances.create(req.body as InstanceCreateInput, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(created.lastGlobalPosition, [...INSTANCE_READ_MODELS, 'project_list', 'project_detail']);
    res.status(201).json(await instanceDetailOut(ctx.readModel, await instanceOr404(ctx.readModel, created.slug)));
  });

  route(router, ctx, 'POST', '/internal/instances/purge', async (req: Request, res: Response) => {
    // Only the records: the executor deletes each instance's files (its logs) on InstancePurged.
    const result = await ctx.instances.purgeDestroyed(commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(result.lastGlobalPosition, INSTANCE_READ_MODELS);
    res.json({ purged: result.purged });
  });

  route(router, ctx, 'POST', '/internal/instances/:slug/action', validateSlug, validateBody('api/InstanceAction.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const result = await ctx.instances.action(slug, (req.body as { action: InstanceAction }).action, commandMetadata(req, actingUser(res.locals)));
    await ctx.waitForProjections(result.lastGlobalPosition, INSTANCE_READ_MODELS);
    res.json(await instanceDetailOut(ctx.readModel, await instanceOr404(ctx.readModel, slug)));
  });

  // Web's shell sessions: recorded before the shell starts (a refusal keeps it from starting) and when it ends.
  route(router, ctx, 'POST', '/internal/instances/:slug/shell-sessions', validateSlug, validateBody('api/ShellSessionOpen.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const body = req.body as { session_id: string; runtime: ShellRuntime };
    const user = actingUser(res.locals);
    const result = await ctx.instances.openShell(slug, body.session_id, user.email, body.runtime, commandMetadata(req, user));
    res.status(201).json({ slug, session_id: body.session_id, recorded: result.events.length > 0 });
  });

  route(router, ctx, 'POST', '/internal/instances/:slug/shell-sessions/:session_id/close', validateSlug, validateBody('api/ShellSessionClose.v1.json'), async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    const sessionId = String(req.params['session_id']);
    const body = req.body as { duration_ms: number; reason: ShellCloseReason };
    const result = await ctx.instances.closeShell(slug, sessionId, body.duration_ms, body.reason, commandMetadata(req, actingUser(res.locals)));
    res.json({ slug, session_id: sessionId, recorded: result.events.length > 0 });
  });
}
