import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { EventMetadata } from '#shared/eventStore/eventStore.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { ControlPlaneContext } from '../context.ts';
import { route } from '../http/route.ts';
import { decodeHookBody, parsePushPayload, PushPayloadError, TooManyBranchesError, type PushPayload } from './pushPayload.ts';

/** Hosts send whole commit lists (GitHub caps deliveries at 25 MB); far above the app's 64 kB JSON limit. */
const HOOK_BODY_LIMIT = '5mb';

/** The answer to a delivery (schemas/api/GitHookResult.v1.json). */
export interface GitHookResult {
  project: string;
  host: PushPayload['host'];
  event: PushPayload['event'];
  /** The first branch pushed, null when the delivery pushed none (a ping, tags, deletions). */
  branch: string | null;
  branches: string[];
  rebuilt: string[];
  /** Instances busy with a job: one rebuild to the branch head runs when it ends (later pushes join it). */
  deferred: string[];
  /** Instances on a pushed branch that cannot rebuild (being destroyed, or in a state that cannot), with why. */
  skipped: Array<{ slug: string; reason: string }>;
  ignored: number;
}

/**
 * `POST /webhooks/git/:project_slug/:token`, the git hosts' push hook. The authorization table's
 * `hook` guard has checked the token (403) and the project (404) before the body is read. Register
 * it before the app-wide JSON parser: it reads its own raw body, JSON or GitHub's form encoding.
 */
export function gitHookApi(router: Router, ctx: ControlPlaneContext): void {
  const rawBody = express.raw({ type: () => true, limit: HOOK_BODY_LIMIT });
  route(router, ctx, 'POST', '/webhooks/git/:project_slug/:token', rawBody, async (req: Request, res: Response) => {
    const project = String(req.params['project_slug']);
    const payload = readPayload(req);
    const metadata = hookMetadata(req);
    // Every branch of the delivery at once (the project's instances are read once); a failure
    // answers 500 and the host redelivers the whole push.
    const outcome = payload.pushes.length > 0 ? await ctx.instances.rebuildForPush(project, payload.pushes, metadata) : { rebuilt: [], deferred: [], skipped: [] };
    const branches = payload.pushes.map((push) => push.branch);
    const result: GitHookResult = {
      project,
      host: payload.host,
      event: payload.event,
      branch: branches[0] ?? null,
      branches,
      rebuilt: [...new Set(outcome.rebuilt)],
      deferred: [...new Set(outcome.deferred)],
      skipped: [...new Map(outcome.skipped.map((skip) => [skip.slug, skip])).values()],
      ignored: payload.ignored,
    };
    res.json(result);
  });
}

function readPayload(req: Request): PushPayload {
  try {
    // A body some earlier parser already read arrives as an object; ours leaves a Buffer (or nothing).
    const body: unknown = req.body === undefined || Buffer.isBuffer(req.body) ? decodeHookBody(req.body as Buffer | undefined, req.get('content-type')) : req.body;
    return parsePushPayload(req.headers, body);
  } catch (error) {
    if (error instanceof TooManyBranchesError) throw new HttpError(413, error.message);
    if (error instanceof PushPayloadError) throw new HttpError(400, error.message);
    throw error;
  }
}

/** The hosts' delivery ids, most specific first; X-Request-Id also comes from Bitbucket Data Center and proxies. */
const DELIVERY_HEADERS = ['x-github-delivery', 'x-gitea-delivery', 'x-forgejo-delivery', 'x-gitlab-event-uuid', 'x-request-uuid', 'x-request-id'];

/** Events of a push are the system's doing, correlated by the host's delivery id so its delivery log and ours meet. */
export function hookMetadata(req: Request): EventMetadata {
  const delivery = DELIVERY_HEADERS.map((name) => req.get(name)?.trim()).find((value) => value !== undefined && /^[\w.:{}-]{1,128}$/.test(value));
  const id = delivery ?? randomUUID();
  return { correlationId: id, causationId: id, actor: 'system', at: new Date().toISOString() };
}
