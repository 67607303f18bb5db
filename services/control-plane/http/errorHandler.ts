import type { NextFunction, Request, Response } from 'express';
import { ProjectionTimeoutError } from '#projections/runner/waitForPosition.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { HttpError, RequestValidationError } from '#shared/http/errors.ts';
import type { Logger } from '#shared/log.ts';

const DOMAIN_STATUS = { conflict: 409, not_found: 404, invalid: 422 } as const;

/**
 * Every error becomes JSON `{"detail": …}` with the right status; a malformed JSON body is a 422,
 * never a 500. Only unexpected errors are logged, and their text never reaches the client.
 */
export function errorHandler(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const bodyError = error as { type?: string; status?: number; limit?: number };
    if (bodyError.type === 'entity.parse.failed') {
      res.status(422).json({ detail: [{ loc: ['body'], msg: 'the body is not valid JSON', type: 'value_error.jsondecode' }] });
    } else if (bodyError.type === 'entity.too.large') {
      res.status(413).json({ detail: `the body is larger than ${Math.round((bodyError.limit ?? 0) / 1024)} kB` });
    } else if (bodyError.type === 'encoding.unsupported' || bodyError.type === 'charset.unsupported') {
      res.status(415).json({ detail: 'unsupported body encoding' });
    } else if (error instanceof RequestValidationError) {
      res.status(422).json({ detail: error.issues });
    } else if (error instanceof DomainError) {
      // A refusal about one field (InstanceInputError and the like) names it, so a form can show it there.
      const field = (error as { field?: unknown }).field;
      const loc = typeof field === 'string' ? ['body', field] : ['body'];
      if (error.kind === 'invalid') res.status(422).json({ detail: [{ loc, msg: error.message, type: 'value_error.domain' }] });
      else res.status(DOMAIN_STATUS[error.kind]).json({ detail: error.message });
    } else if (error instanceof HttpError) {
      res.status(error.status).set(error.headers).json({ detail: error.detail });
    } else if (error instanceof ProjectionTimeoutError) {
      logger.warn({ err: error }, 'read model lagging');
      res.status(503).set('Retry-After', '2').json({ detail: 'the change was saved but is not visible yet; retry in a moment' });
    } else {
      logger.error({ err: error }, 'request failed');
      res.status(500).json({ detail: 'internal error' });
    }
  };
}
