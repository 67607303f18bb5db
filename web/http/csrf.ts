import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { HttpError } from '#shared/http/errors.ts';

/** The session's CSRF token, created on first use; every form carries it as `_csrf`. */
export function csrfToken(req: Request): string {
  req.session.csrfToken ??= randomBytes(24).toString('base64url');
  return req.session.csrfToken;
}

/**
 * Synchronizer-token check on every POST: the `_csrf` field (plain forms) or the `X-CSRF-Token`
 * header (htmx requests) must equal the session's token.
 */
export function checkCsrf(req: Request, _res: Response, next: NextFunction): void {
  if (req.method !== 'POST') return next();
  const expected = req.session.csrfToken;
  const body = req.body as Record<string, unknown> | undefined;
  const presented = req.get('x-csrf-token') ?? (typeof body?.['_csrf'] === 'string' ? body['_csrf'] : '');
  const ok = expected !== undefined && presented.length === expected.length && timingSafeEqual(Buffer.from(presented), Buffer.from(expected));
  next(ok ? undefined : new HttpError(403, 'This form has expired or did not come from Forja. Go back, reload the page and try again.'));
}
