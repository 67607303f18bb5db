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
    const broken = loneSurrogateAt(req.body, ['body']);
    if (broken) {
      next(new RequestValidationError([{ loc: broken, msg: 'must be valid Unicode: a lone surrogate (\\ud800 to \\udfff unpaired) cannot be stored', type: 'value_error.unicode' }]));
      return;
    }
    next();
  };
}

/** An unpaired UTF-16 surrogate: with the `u` flag a pair is one code point, so only a lone half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Where a string of a JSON body holds a lone surrogate, if anywhere. JSON's `\ud800` escape carries
 * one past the parser and the schemas, and PostgreSQL's jsonb refuses it: the append failed with a 500.
 */
function loneSurrogateAt(value: unknown, at: Array<string | number>): Array<string | number> | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? at : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = loneSurrogateAt(item, [...at, Array.isArray(value) ? Number(key) : key]);
    if (found) return found;
  }
  return undefined;
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
