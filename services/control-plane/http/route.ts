import type { RequestHandler, Router } from 'express';
import { ruleFor, type Method } from '#shared/auth/authorizationTable.ts';
import type { ControlPlaneContext } from '../context.ts';
import { guardsFor } from './guards.ts';

/**
 * Registers a route through the authorization table: the table's rule decides the guards, and a
 * route that is not in the table throws at start-up instead of going out unguarded. (Express 5
 * passes a rejected promise of an async handler to the error handler.)
 */
export function route(router: Router, ctx: ControlPlaneContext, method: Method, path: string, ...handlers: RequestHandler[]): void {
  const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  router[verb](path, ...guardsFor(ruleFor('control-plane', method, path), ctx), ...handlers);
}
