import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { getProject } from '#projections/projects/projectDetail.ts';
import { findUserByEmail, findUserById } from '#projections/users/users.ts';
import type { RouteRule } from '#shared/auth/authorizationTable.ts';
import { roleAtLeast, type Role } from '#shared/auth/roles.ts';
import { webhookTokenMatches } from '#shared/auth/webhookToken.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { ControlPlaneContext } from '../context.ts';
import { BASIC_EMAIL, basicAuth, CHALLENGE } from './basicAuth.ts';

/**
 * The handlers that enforce one rule of the authorization table before the route runs. The API
 * answers 401 with `WWW-Authenticate: Basic realm="forja"` for missing, wrong or deactivated
 * credentials and 403 for a role too weak; internal routes want the service token; git push hooks
 * the project's token in the path.
 */
export function guardsFor(rule: RouteRule, ctx: ControlPlaneContext): RequestHandler[] {
  switch (rule.access) {
    case 'public':
      return [];
    case 'hook':
      return [projectHookToken(ctx)];
    case 'service':
      return [serviceToken(ctx), actingFor(rule.actor, ctx)];
    case 'authenticated':
      return [basicAuth(ctx), loadBasicUser(ctx, 'viewer')];
    case 'viewer':
    case 'developer':
    case 'admin':
      return [basicAuth(ctx), loadBasicUser(ctx, rule.access)];
  }
}

/** Loads the user on every request, so a deactivation or role change takes effect at once. */
function loadBasicUser(ctx: ControlPlaneContext, minimum: Role): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    const email = String(res.locals[BASIC_EMAIL] ?? '');
    findUserByEmail(ctx.readModel, email).then((user) => {
      if (!user?.active) return next(new HttpError(401, 'this account is deactivated', CHALLENGE));
      if (!roleAtLeast(user.role, minimum)) return next(new HttpError(403, `this needs the ${minimum} role; you are ${user.role}`));
      res.locals['user'] = user;
      next();
    }, next);
  };
}

function serviceToken(ctx: ControlPlaneContext): RequestHandler {
  const expected = createHash('sha256').update(ctx.secrets.serviceToken).digest();
  return (req, _res, next) => {
    const presented = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const ok = timingSafeEqual(createHash('sha256').update(presented).digest(), expected);
    next(ok ? undefined : new HttpError(401, 'internal endpoint: missing or wrong service token'));
  };
}

/**
 * A git push hook carries no credentials, only the project's token in its path
 * (`:project_slug/:token`): an unknown project is 404 (so a host's delivery log tells a mistyped
 * slug from a wrong token), a wrong token 403, compared in constant time.
 */
function projectHookToken(ctx: ControlPlaneContext): RequestHandler {
  return (req, _res, next) => {
    const slug = String(req.params['project_slug']);
    // Not a slug (PostgreSQL would refuse a U+0000 in it with a 500): no such project.
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) || slug.length > 64) return next(new HttpError(404, 'no such project'));
    getProject(ctx.readModel, slug).then((project) => {
      if (!project) return next(new HttpError(404, `no project ${slug}`));
      if (!webhookTokenMatches(ctx.secrets.webhookSecret, slug, project.webhook_nonce, String(req.params['token']))) return next(new HttpError(403, `wrong hook token for project ${slug}`));
      next();
    }, next);
  };
}

/** Internal calls act for the signed-in web user named in `X-Forja-Actor`, who must hold the rule's role. */
function actingFor(minimum: RouteRule['actor'], ctx: ControlPlaneContext): RequestHandler {
  return (req, res, next) => {
    if (!minimum) return next();
    const actor = req.get('x-forja-actor') ?? '';
    findUserById(ctx.readModel, actor).then((user) => {
      if (!user?.active) return next(new HttpError(403, 'the acting user is unknown or deactivated'));
      if (minimum !== 'authenticated' && !roleAtLeast(user.role, minimum)) return next(new HttpError(403, `this needs the ${minimum} role; you are ${user.role}`));
      res.locals['user'] = user;
      next();
    }, next);
  };
}
