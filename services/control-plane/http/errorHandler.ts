import type { NextFunction, Request, Response } from 'express';
import { ProjectionTimeoutError } from '#projections/runner/waitForPosition.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { WrongExpectedVersionError } from '#shared/eventStore/eventStore.ts';
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
    } else if (error instanceof URIError && bodyError.status === 400) {
      // The router could not decode a path parameter (`/api/v1/projects/%`): invalid input, like a bad slug.
      res.status(422).json({ detail: [{ loc: ['path'], msg: 'the path is not valid percent-encoding', type: 'value_error.path_encoding' }] });
    } else if (bodyError.status === 400 && bodyError.type === undefined && !(error instanceof HttpError)) {
      // The body parser passes zlib's error on with a 400 and no type: a body that does not inflate as its Content-Encoding says.
      res.status(422).json({ detail: [{ loc: ['body'], msg: 'the body could not be decoded as its Content-Encoding says', type: 'value_error.content_encoding' }] });
    } else if (isClientError(bodyError.status) && !(error instanceof HttpError)) {
      // The body parser's other refusals (a body shorter than its Content-Length…): the client's, said in our words.
      res.status(bodyError.status).json({ detail: 'the request body could not be read' });
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
    } else if (error instanceof WrongExpectedVersionError) {
      // handleCommand lost the race to the stream on every retry: many writers at once, the client's to retry.
      res.status(409).set('Retry-After', '1').json({ detail: 'this record was being changed by other requests at the same time; retry in a moment' });
    } else if (error instanceof ProjectionTimeoutError) {
      logger.warn({ err: error }, 'read model lagging');
      res.status(503).set('Retry-After', '2').json({ detail: 'the change was saved but is not visible yet; retry in a moment' });
    } else {
      logger.error({ err: error }, 'request failed');
      res.status(500).json({ detail: 'internal error' });
    }
  };
}

function isClientError(status: number | undefined): status is number {
  return typeof status === 'number' && status >= 400 && status < 500;
}
