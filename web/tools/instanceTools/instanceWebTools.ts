import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../../context.ts';
import { toolProxy } from '../toolProxy.ts';
import type { WebTool } from '../webTools.ts';
import { activityRecorder } from './instanceActivity.ts';
import type { InstanceToolSpec } from './instanceToolSpec.ts';
import type { RunningTool, ToolSupervisor } from './toolSupervisor.ts';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The slug in `/instances/<slug>/<kind>/proxy…`, if the path is one. */
export function slugOf(url: string | undefined): string | null {
  const slug = /^\/instances\/([^/?]+)\//.exec(url ?? '')?.[1] ?? '';
  return slug.length <= 64 && SLUG.test(slug) ? slug : null;
}

/** Every instance tool of `specs`, proxied at `/instances/:slug/<kind>/proxy`; their use is the instance's activity. */
export function instanceWebTools(ctx: WebContext, supervisor: ToolSupervisor, specs: InstanceToolSpec[]): WebTool[] {
  const activity = activityRecorder(ctx);
  return specs.map((spec) => instanceWebTool(ctx, supervisor, spec, activity));
}

/** Web's proxy for one per-instance tool at `/instances/:slug/<kind>/proxy`: checks, starts on use, forwards. */
function instanceWebTool(ctx: WebContext, supervisor: ToolSupervisor, spec: InstanceToolSpec, activity: (actorId: string, slug: string) => void): WebTool {
  const started = new WeakMap<IncomingMessage, RunningTool>();
  const proxy = toolProxy(ctx, {
    target: 'http://127.0.0.1',
    label: spec.label,
    router: (req) => started.get(req)!.target,
    injectHeaders: (req) => spec.injectHeaders(started.get(req)!.token),
    scrubFromResponses: (req) => started.get(req)!.token,
    ...(spec.stripBasePath ? { pathRewrite: (path: string) => path.replace(/^\/instances\/[^/]+\/[^/]+\/proxy/, '') || '/' } : {}),
    // Tools answer a request carrying their secret with CORS headers for any origin: web serves them same-origin only.
    hideResponseHeaders: ['access-control-allow-origin', 'access-control-allow-credentials'],
    downAdvice: 'Forja starts it when you open it and stops it after a while without use: reload the page; if it persists, tell your administrator.',
    ...(spec.scriptSources ? { scriptSources: spec.scriptSources } : {}),
  });

  /** The running tool for a request on an instance that exists, started if needed; HttpError otherwise. */
  async function toolFor(slug: string | null): Promise<RunningTool> {
    const instance = slug ? await getInstance(ctx.readModel, slug) : undefined;
    if (!slug || !instance || instance.status === 'destroyed') {
      if (slug) void supervisor.stopInstance(slug);
      throw new HttpError(404, `There is no instance ${slug ?? ''}. It may have been destroyed.`);
    }
    const missing = spec.available();
    if (missing) throw new HttpError(503, missing);
    try {
      return await supervisor.use(spec, slug);
    } catch (error) {
      ctx.logger.error({ err: error, slug, tool: spec.kind }, 'tool did not start');
      throw new HttpError(502, `${spec.label} could not be started for ${slug}. Try again shortly; if it persists, tell your administrator (web's log says why).`);
    }
  }

  const handle: RequestHandler = (req, res, next) => {
    const slug = slugOf(req.originalUrl);
    toolFor(slug).then(
      (running) => {
        started.set(req, running);
        const user = res.locals['user'] as { user_id: string } | undefined;
        if (user && slug) activity(user.user_id, slug);
        proxy.handle(req, res, next);
      },
      (error: unknown) => next(error),
    );
  };

  return {
    prefix: `/instances/:slug/${spec.kind}/proxy`,
    proxy: {
      handle,
      upgrade: (req, socket, head) => {
        const slug = slugOf(req.url);
        // The browser may hang up while the tool starts: that is no error of web's.
        socket.on('error', () => socket.destroy());
        toolFor(slug).then(
          (running) => {
            started.set(req, running);
            // What the browser sends on a kernel's channel is use: a cell run keeps the tool up. Control
            // frames (a pong to the tool's ping every 30 s) are not: an open tab left alone is no use.
            socket.on('data', (chunk: Buffer) => {
              if (((chunk[0] ?? 0) & 0x0f) < 0x8) supervisor.touch(spec, slug!);
            });
            proxy.upgrade(req, socket, head);
          },
          (error: unknown) => {
            const status = error instanceof HttpError ? error.status : 500;
            socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Unavailable'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
          },
        );
      },
    },
  };
}
