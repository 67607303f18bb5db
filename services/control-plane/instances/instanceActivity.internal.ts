import type { Request, Response, Router } from 'express';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instanceStream } from '#services/instances/domain/instance.ts';
import { actingUser, type ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { validateSlug } from '../http/validate.ts';
import { commandMetadata } from '../projects/project.api.ts';
import { instanceOr404 } from './instanceOut.ts';

/** As the ERP router's visits (erpActivity.ts): sleep is measured in hours. */
const VISIT_EVERY_MS = 5 * 60 * 1000;

/**
 * `POST /internal/instances/:slug/activity`: a developer used one of the instance's tools (notebook,
 * code editor) through web, which counts as activity for the idle sweep like a visit to the ERP.
 * Web throttles its calls too; this bound keeps the stream small if several web processes call.
 */
export function instanceActivityInternal(router: Router, ctx: ControlPlaneContext): void {
  const lastVisit = new Map<string, number>();
  route(router, ctx, 'POST', '/internal/instances/:slug/activity', validateSlug, async (req: Request, res: Response) => {
    const slug = String(req.params['slug']);
    await instanceOr404(ctx.readModel, slug);
    const now = Date.now();
    if (now - (lastVisit.get(slug) ?? -Infinity) < VISIT_EVERY_MS) return void res.json({ recorded: false });
    const result = await handleCommand(ctx.store, instanceDecider, instanceStream(slug), { type: 'RecordVisit' }, { metadata: commandMetadata(req, actingUser(res.locals)) });
    lastVisit.set(slug, now);
    // RecordVisit records nothing for an instance that is not running: nothing there for the sweep to put to sleep.
    res.json({ recorded: result.events.length > 0 });
  });
}
