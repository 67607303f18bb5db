import type { NextFunction, Request, Response } from 'express';
import { issuesFromAjv, RequestValidationError } from '#shared/http/errors.ts';
import { schemaValidator } from '#shared/schemaValidator.ts';

/** Validates the JSON body against `schemas/<path>`; a mismatch is a 422 listing every problem. */
export function validateBody(path: string) {
  const validate = schemaValidator(path);
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!req.is('application/json')) {
      next(new RequestValidationError([{ loc: ['body'], msg: 'send a JSON body with Content-Type: application/json', type: 'value_error.content_type' }]));
      return;
    }
    if (!validate(req.body)) {
      next(new RequestValidationError(issuesFromAjv(validate.errors, 'body')));
      return;
    }
    next();
  };
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Path slugs are lower-case words joined by `-`; anything else is a 422, not a lookup. */
export function validateSlug(req: Request, _res: Response, next: NextFunction): void {
  const slug = req.params['slug'];
  if (typeof slug === 'string' && (slug.length > 64 || !SLUG.test(slug))) {
    next(new RequestValidationError([{ loc: ['path', 'slug'], msg: 'a slug is lower-case letters and digits joined by -', type: 'value_error.slug' }]));
    return;
  }
  next();
}
