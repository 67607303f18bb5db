import type { WebContext } from '../../context.ts';

/** As the ERP router: sleep is measured in hours, so one visit per instance per 5 minutes is plenty. */
export const ACTIVITY_EVERY_MS = 5 * 60 * 1000;

/**
 * Tells the control-plane an instance is in use (its tools count as activity for the sleep sweep),
 * at most once per instance per interval, so a busy notebook does not call it per request. Never
 * holds a request up; a call that failed is tried again at the next request.
 */
export function activityRecorder(ctx: WebContext, everyMs = ACTIVITY_EVERY_MS) {
  const last = new Map<string, number>();
  return (actorId: string, slug: string): void => {
    const now = Date.now();
    if (now - (last.get(slug) ?? -Infinity) < everyMs) return;
    last.set(slug, now);
    ctx.controlPlane.recordInstanceActivity(actorId, slug).catch((error: unknown) => {
      last.delete(slug);
      ctx.logger.warn({ err: error, slug }, 'could not record instance activity');
    });
  };
}
