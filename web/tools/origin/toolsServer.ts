import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type ErrorRequestHandler, type Express, type Request } from 'express';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../../context.ts';
import type { UpgradeHandler, WebTool } from '../webTools.ts';
import type { ToolSignIn } from './openTool.ts';
import { localDomain, toolOrigin } from './toolHosts.ts';
import { isUnsafe, sameOrigin } from '../toolOrigin.ts';
import { TOOL_COOKIE, toolRequest, toolUsers } from './toolSignIn.ts';
import { COOKIE_TTL_MS } from './toolTokens.ts';

const PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** A same-host path to go on to after signing in: `/x…`, never `//host` or `/\host` (no open redirect). */
const samePath = (to: unknown): to is string => typeof to === 'string' && /^\/(?![/\\])/.test(to) && !/[\r\n]/.test(to);

function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * The tools origin (FORJA_TOOLS_PORT): one host per tool and instance under FORJA_TOOLS_DOMAIN,
 * each reached only with its own cookie, set by `/.forja/enter` from web's one-time token. Web's
 * session cookie means nothing here; every write and WebSocket must come from the tool's own origin.
 */
export function toolsServer(ctx: WebContext, tools: WebTool[], signIn: ToolSignIn, webUrl: () => string): { app: Express; upgrade: UpgradeHandler } {
  const users = toolUsers(ctx, signIn.tokens);
  const secure = !localDomain(signIn.origin.domain);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.settings.FORJA_TRUST_PROXY);
  const backToWeb = (req: Request) => `${webUrl()}${req.originalUrl}`;

  app.get('/.forja/enter', async (req, res) => {
    const to = req.query['to'];
    if (!samePath(to)) throw new HttpError(400, 'The sign-in link goes nowhere on this tool.');
    const target = toolRequest(tools, signIn.origin, req, to);
    const claims = target && signIn.tokens.redeem(typeof req.query['token'] === 'string' ? req.query['token'] : undefined, target.host);
    if (!target || !claims || claims.kind !== target.kind || claims.slug !== target.slug) {
      throw new HttpError(403, `This sign-in link is used up, expired or for another tool: open the tool again from Forja (${webUrl()}${to}).`);
    }
    const cookie = signIn.tokens.cookie(claims);
    res.cookie(TOOL_COOKIE, cookie, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: COOKIE_TTL_MS });
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, to);
  });

  app.use(async (req, res, next) => {
    const target = toolRequest(tools, signIn.origin, req);
    if (!target) throw new HttpError(404, 'There is no such tool here.');
    const user = await users.signedIn(req, target);
    if (!user) {
      if (req.method === 'GET' || req.method === 'HEAD') return void res.redirect(303, backToWeb(req));
      throw new HttpError(401, 'Open the tool from Forja to sign in to it.');
    }
    if (isUnsafe(req.method) && !sameOrigin(req, toolOrigin(target.host, signIn.origin))) throw new HttpError(403, 'This tool takes changes only from its own pages.');
    res.locals['user'] = user;
    // A tool's handler may be async (the database admin looks its instance up): its refusal is an error page here.
    await (target.tool.proxy.handle(req, res, next) as unknown as Promise<void> | undefined);
  });

  const errors: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    const status = error instanceof HttpError ? error.status : 500;
    if (status === 500) ctx.logger.error({ err: error }, 'tools origin failed');
    if (res.headersSent) return void res.destroy();
    res.status(status).set({ 'Content-Type': 'text/plain; charset=utf-8', 'Content-Security-Policy': PAGE_POLICY, 'X-Content-Type-Options': 'nosniff' });
    res.end(error instanceof HttpError ? error.message : 'The tools origin failed; web\'s log says why.');
  };
  app.use(errors);

  const upgrade: UpgradeHandler = (req: IncomingMessage, socket, head) => {
    socket.on('error', () => socket.destroy());
    const target = toolRequest(tools, signIn.origin, req);
    if (!target) return refuse(socket, 404, 'Not Found');
    if (!sameOrigin(req, toolOrigin(target.host, signIn.origin))) return refuse(socket, 403, 'Forbidden');
    users.signedIn(req, target).then(
      (user) => (user ? target.tool.proxy.upgrade(req, socket, head) : refuse(socket, 401, 'Unauthorized')),
      (error: unknown) => {
        ctx.logger.error({ err: error, path: req.url }, 'tool WebSocket refused: its user could not be read');
        refuse(socket, 500, 'Internal Server Error');
      },
    );
  };
  return { app, upgrade };
}
