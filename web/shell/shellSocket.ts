import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { WebSocketServer } from 'ws';
import { ruleFor } from '#shared/auth/authorizationTable.ts';
import { roleAtLeast, type Role } from '#shared/auth/roles.ts';
import type { WebContext } from '../context.ts';
import { loadSessionUser } from '../http/route.ts';
import { sameOrigin } from './shellOrigin.ts';
import { initialSize } from './shellMessages.ts';
import { runShellSession, type LiveShell, type ShellSessionDeps, type ShellUser } from './shellSession.ts';

export const SHELL_SOCKET_ROUTE = '/instances/:slug/shell/socket';
const SHELL_SOCKET_PATH = /^\/instances\/([a-z0-9]+(?:-[a-z0-9]+)*)\/shell\/socket$/;

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Runs an express middleware on a request that has no express response (an upgrade). */
function run(middleware: RequestHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => middleware(req as Request, res as Response, (error?: unknown) => (error ? reject(error as Error) : resolve())));
}

export interface ShellSockets {
  /** True when the upgrade is for a shell socket (the web server's upgrade listener asks). */
  handles(url: string | undefined): boolean;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends every live session (web is stopping), each recorded as closed by the server. */
  close(): Promise<void>;
}

/**
 * The shell's WebSocket, authorized like every route: the session cookie must name a user the
 * authorization table lets in (the rule of `GET /instances/:slug/shell/socket`), and since no CSRF
 * token protects a WebSocket, its Origin must be web's own.
 */
export function shellSockets(ctx: WebContext, session: RequestHandler, deps: Omit<ShellSessionDeps, 'readModel' | 'controlPlane' | 'logger'>): ShellSockets {
  const server = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  const live = new Set<LiveShell>();
  const sessionDeps: ShellSessionDeps = { ...deps, readModel: ctx.readModel, controlPlane: ctx.controlPlane, logger: ctx.logger };
  const pathOf = (url: string | undefined) => (url ?? '').split('?', 1)[0] ?? '';
  return {
    handles: (url) => SHELL_SOCKET_PATH.test(pathOf(url)),
    upgrade(req, socket, head) {
      const slug = SHELL_SOCKET_PATH.exec(pathOf(req.url))?.[1];
      if (!slug) return refuse(socket, 404, 'Not Found');
      if (!sameOrigin(req.headers.origin, req.headers.host, ctx.settings.FORJA_PUBLIC_URL)) return refuse(socket, 403, 'Forbidden');
      const res = new ServerResponse(req) as ServerResponse & { locals: Record<string, unknown> };
      res.locals = {};
      run(session, req, res)
        .then(() => run(loadSessionUser(ctx), req, res))
        .then(() => {
          const user = res.locals['user'] as (ShellUser & { role: Role }) | undefined;
          if (!user) return refuse(socket, 401, 'Unauthorized');
          const access = ruleFor('web', 'GET', SHELL_SOCKET_ROUTE).access as Role;
          if (!roleAtLeast(user.role, access)) return refuse(socket, 403, 'Forbidden');
          server.handleUpgrade(req, socket, head, (ws) => {
            runShellSession(sessionDeps, ws, slug, { user_id: user.user_id, email: user.email }, initialSize(req.url), live).catch((error: unknown) => {
              ctx.logger.error({ err: error, slug }, 'web shell failed');
              ws.close(1011);
            });
          });
        })
        .catch((error: unknown) => {
          ctx.logger.error({ err: error, path: req.url }, 'shell WebSocket refused: the session could not be read');
          refuse(socket, 500, 'Internal Server Error');
        });
    },
    async close() {
      await Promise.all([...live].map((shell) => shell.end('server', 'Forja’s web server is stopping: the shell was closed. Reconnect once it is back.')));
      server.close();
    },
  };
}
