import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { roleAtLeast, type Role } from '#shared/auth/roles.ts';
import type { WebContext } from '../context.ts';
import { loadSessionUser } from '../http/route.ts';
import { sameOrigin } from './toolOrigin.ts';
import { toolFor, upgradeAccess, type UpgradeHandler, type WebTool } from './webTools.ts';

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Runs an express middleware on a request that has no express response (an upgrade). */
function run(middleware: RequestHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => middleware(req as Request, res as Response, (error?: unknown) => (error ? reject(error as Error) : resolve())));
}

/**
 * The web server's `upgrade` listener: a WebSocket to a tool path goes to that tool's proxy once
 * its Origin is web's own and the session cookie names a user the authorization table lets in;
 * anything else is refused.
 */
export function toolUpgrades(ctx: WebContext, session: RequestHandler, tools: WebTool[]): UpgradeHandler {
  return (req, socket, head) => {
    const tool = toolFor(tools, req.url);
    if (!tool) return refuse(socket, 404, 'Not Found');
    // Every tool's WebSocket, the mail catcher's and monitoring's too: a page of another origin opens none with the user's cookie.
    if (!sameOrigin(req)) return refuse(socket, 403, 'Forbidden');
    const res = new ServerResponse(req) as ServerResponse & { locals: Record<string, unknown> };
    res.locals = {};
    run(session, req, res)
      .then(() => run(loadSessionUser(ctx), req, res))
      .then(() => {
        const user = res.locals['user'] as { role: Role } | undefined;
        const access = upgradeAccess(tool);
        if (!user) return refuse(socket, 401, 'Unauthorized');
        const minimum: Role = access === 'authenticated' ? 'viewer' : (access as Role);
        if (!roleAtLeast(user.role, minimum)) return refuse(socket, 403, 'Forbidden');
        tool.proxy.upgrade(req, socket, head);
      })
      .catch((error: unknown) => {
        ctx.logger.error({ err: error, path: req.url }, 'tool WebSocket refused: the session could not be read');
        refuse(socket, 500, 'Internal Server Error');
      });
  };
}
