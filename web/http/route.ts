import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { findUserById } from '#projections/users/users.ts';
import { ruleFor, type Method, type RouteRule } from '#shared/auth/authorizationTable.ts';
import { roleAtLeast, type Role } from '#shared/auth/roles.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';

/**
 * Puts the signed-in user in `res.locals.user`, read afresh from the users read model on every
 * request, so a deactivation or a role change takes effect at once.
 */
export function loadSessionUser(ctx: WebContext): RequestHandler {
  return (req, res, next) => {
    const userId = req.session?.userId;
    if (!userId) return next();
    findUserById(ctx.readModel, userId).then((user) => {
      if (user?.active) res.locals['user'] = user;
      else delete req.session.userId;
      next();
    }, next);
  };
}

function requireRole(minimum: Role): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const user = res.locals['user'] as { role: Role } | undefined;
    if (!user) {
      const target = `/login?next=${encodeURIComponent(req.originalUrl)}`;
      if (req.get('hx-request') === 'true') return void res.status(401).set('HX-Redirect', target).end();
      return void res.redirect(303, target);
    }
    if (!roleAtLeast(user.role, minimum)) return next(new HttpError(403, `This needs the ${minimum} role; you are signed in as ${user.role}.`));
    next();
  };
}

function guardsFor(rule: RouteRule): RequestHandler[] {
  switch (rule.access) {
    case 'public':
      return [];
    case 'authenticated':
      return [requireRole('viewer')];
    case 'viewer':
    case 'developer':
    case 'admin':
      return [requireRole(rule.access)];
    case 'service':
    case 'hook':
      throw new Error(`web has no ${rule.access} routes (${rule.method} ${rule.path})`);
  }
}

/** Registers a web route through the authorization table; a route missing from it throws at start-up. */
export function route(router: Router, method: Method, path: string, ...handlers: RequestHandler[]): void {
  routeAfter(router, method, path, [], ...handlers);
}

/**
 * `route` with handlers that run before the guards: tool proxies are registered ahead of web's
 * body parsers and CSRF check, so they load the session and its user themselves.
 */
export function routeAfter(router: Router, method: Method, path: string, before: RequestHandler[], ...handlers: RequestHandler[]): void {
  const verb = method.toLowerCase() as Lowercase<Method>;
  router[verb](path, ...before, ...guardsFor(ruleFor('web', method, path)), ...handlers);
}
