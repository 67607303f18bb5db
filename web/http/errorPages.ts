import type { NextFunction, Request, Response } from 'express';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { render } from './render.ts';

const TITLES: Record<number, string> = { 400: 'Bad request', 401: 'Sign in needed', 403: 'Not allowed', 404: 'Not found', 413: 'Too large', 503: 'Not available' };

/**
 * An error page replaces the whole page, also for an htmx request that targeted a part of it (the
 * layout's htmx config swaps 4xx and 5xx answers), so a refused form or search never does nothing.
 */
function showWholePage(req: Request, res: Response): void {
  if (req.get('hx-request') === 'true') res.set({ 'HX-Retarget': 'body', 'HX-Reswap': 'innerHTML' });
}

/** Errors as pages of the product, never a stack trace. */
export function errorPages(ctx: WebContext) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const bodyError = error as { type?: string; status?: unknown };
    if (res.headersSent) {
      // Nothing more can be said on this response (a 408 for a body too slow, a stream cut short): end it.
      if (bodyError.type !== 'request.aborted') ctx.logger.error({ err: error, path: req.path }, 'page failed after answering');
      return void req.socket.destroy();
    }
    let status = 500;
    let message = 'Something went wrong on our side. The error was logged; try again, and tell your administrator if it persists.';
    if (error instanceof HttpError) {
      status = error.status;
      message = error.detail;
    } else if (bodyError.type === 'entity.too.large') {
      status = 413;
      message = 'What you sent is larger than Forja accepts.';
    } else if (bodyError.type === 'entity.parse.failed') {
      status = 400;
      message = 'What you sent could not be read.';
    } else if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
      // The router's and body parser's own refusals (a path that is not valid percent-encoding, an unknown charset…).
      status = bodyError.status;
      message = 'What you sent could not be read.';
    } else {
      ctx.logger.error({ err: error, path: req.path }, 'page failed');
    }
    res.status(status);
    showWholePage(req, res);
    render(ctx, req, res, 'error.njk', { status, title: TITLES[status] ?? 'Error', message });
  };
}

export function notFound(ctx: WebContext) {
  return (req: Request, res: Response): void => {
    res.status(404);
    showWholePage(req, res);
    render(ctx, req, res, 'error.njk', { status: 404, title: 'Not found', message: `There is no page at ${req.path}.` });
  };
}
