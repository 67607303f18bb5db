import type { Request, Response, Router } from 'express';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { refuseShell } from '#services/instances/domain/instanceShell.ts';
import { orExit } from '#shared/config/config.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { route } from '../http/route.ts';
import { loadShellSettings } from './shell.settings.ts';
import { SHELL_SOCKET_ROUTE } from './shellSocket.ts';

/** The web shell's page, and its socket's path for anything but a WebSocket upgrade (web's upgrade listener takes those). */
export function shellRoutes(router: Router, ctx: WebContext): void {
  const idle = orExit(() => loadShellSettings()).FORJA_SHELL_IDLE;
  route(router, 'GET', '/instances/:slug/shell', async (req: Request, res: Response) => {
    const instance = await getInstance(ctx.readModel, String(req.params['slug']));
    if (!instance) throw new HttpError(404, 'There is no such instance.');
    render(ctx, req, res, 'instances/shell.njk', {
      instance,
      unavailable: refuseShell(instance),
      inContainer: instance.runtime === 'docker',
      idle: idle.replace(/m$/, ' min').replace(/s$/, ' s').replace(/h$/, ' h'),
    });
  });
  route(router, 'GET', SHELL_SOCKET_ROUTE, (_req: Request, res: Response) => {
    res.status(426).set('Upgrade', 'websocket').type('text/plain').send('This is the web shell’s WebSocket: open /instances/<slug>/shell in a browser.\n');
  });
}
