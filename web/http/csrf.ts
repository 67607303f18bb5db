import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { HttpError } from '#shared/http/errors.ts';

/** The session's CSRF token, created on first use; every form carries it as `_csrf`. */
export function csrfToken(req: Request): string {
  req.session.csrfToken ??= randomBytes(24).toString('base64url');
  return req.session.csrfToken;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether `presented` is the session's token. Compares digests, which always have the same byte
 * length: `timingSafeEqual` throws on buffers of different lengths, and equal character counts do
 * not make equal byte counts (32 `é` are 64 bytes).
 */
export function csrfTokenMatches(req: Request, presented: string): boolean {
  const expected = req.session?.csrfToken;
  return expected !== undefined && timingSafeEqual(digest(presented), digest(expected));
}

export const CSRF_REFUSED = 'This form has expired or did not come from Forja. Go back, reload the page and try again.';

/**
 * Paths whose handler streams a multipart body and checks its leading `_csrf` field itself before
 * keeping anything (a multipart body is not parsed before the handler, so this check cannot see the
 * field). Only these paths are let through without the header; any other multipart POST is refused.
 */
const multipartPaths = new Set<string>();

export function checkCsrfInHandler(path: string): void {
  multipartPaths.add(path);
}

/**
 * Synchronizer-token check on every POST: the `_csrf` field (plain forms) or the `X-CSRF-Token`
 * header (htmx requests) must equal the session's token.
 */
export function checkCsrf(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST') return next();
  const header = req.get('x-csrf-token');
  if (header === undefined && req.is('multipart/form-data') && multipartPaths.has(req.path)) {
    res.locals['csrfInBody'] = true;
    return next();
  }
  const body = req.body as Record<string, unknown> | undefined;
  const presented = header ?? (typeof body?.['_csrf'] === 'string' ? body['_csrf'] : '');
  next(csrfTokenMatches(req, presented) ? undefined : new HttpError(403, CSRF_REFUSED));
}
