import type { ErrorObject } from 'ajv';

/** One problem with a request, FastAPI-style: where (`["body", "name"]`), what, and its kind. */
export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** 422: the path, query or body is not what the endpoint takes. */
export class RequestValidationError extends Error {
  override readonly name = 'RequestValidationError';
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}

/** An error with the HTTP status and the `detail` to send. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/**
 * The pattern every free-text string of `schemas/api` carries: PostgreSQL refuses U+0000 in text,
 * and no name, URL or e-mail means anything by the other C0 controls or DEL.
 */
export const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001F\\u007F]*$';

/** Maps ajv's errors to issues located under `where` (`body`, `query`, `path`). */
export function issuesFromAjv(errors: ErrorObject[] | null | undefined, where: 'body' | 'query' | 'path'): ValidationIssue[] {
  return (errors ?? []).map((error) => {
    const loc: Array<string | number> = [where, ...error.instancePath.split('/').filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part))];
    if (error.keyword === 'required') return { loc: [...loc, String(error.params['missingProperty'])], msg: 'field required', type: 'value_error.missing' };
    if (error.keyword === 'additionalProperties') {
      return { loc: [...loc, String(error.params['additionalProperty'])], msg: 'extra field not permitted', type: 'value_error.extra' };
    }
    // ajv says "must be equal to one of the allowed values" without naming them; the caller needs them.
    if (error.keyword === 'enum') return { loc, msg: `must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}`, type: 'value_error.enum' };
    // Its own type, so that a form showing pattern errors in its own words does not misname it.
    if (error.keyword === 'pattern' && error.params['pattern'] === NO_CONTROL_CHARACTERS) {
      return { loc, msg: 'must not contain control characters (U+0000 to U+001F, U+007F)', type: 'value_error.control_characters' };
    }
    return { loc, msg: error.message ?? 'is invalid', type: `value_error.${error.keyword}` };
  });
}
