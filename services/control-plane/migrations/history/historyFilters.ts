import type { Request } from 'express';
import { HttpError, RequestValidationError, type ValidationIssue } from '#shared/http/errors.ts';
import { CONTROL_CHARACTER } from '../../projects/project.api.ts';

/** What the history is narrowed to; null keeps everything. */
export interface HistoryFilters {
  run: number | null;
  /** A user's e-mail or id, or `system`. */
  actor: string | null;
  type: string | null;
}

const POSITIVE = /^[1-9][0-9]{0,8}$/;

/** `run`, `actor` and `type` of the query string, or 422 naming each wrong one. */
export function historyFilters(req: Request): HistoryFilters {
  const issues: ValidationIssue[] = [];
  const read = (name: string, ok: (value: string) => boolean, msg: string): string | null => {
    const value = req.query[name];
    if (value === undefined || value === '') return null;
    if (typeof value === 'string' && ok(value)) return value;
    issues.push({ loc: ['query', name], msg, type: 'value_error' });
    return null;
  };
  const run = read('run', (value) => POSITIVE.test(value), 'run is a run number (a positive integer)');
  const actor = read('actor', (value) => value.length <= 254 && !CONTROL_CHARACTER.test(value), "actor is a user's e-mail or id, or system");
  const type = read('type', (value) => /^[A-Za-z]{1,100}$/.test(value), 'type is an event type such as MigrationRunRequested');
  if (issues.length > 0) throw new RequestValidationError(issues);
  return { run: run === null ? null : Number(run), actor, type };
}

/** `:position` of the path: the event's version in the stream, 1 to `total`. */
export function historyPosition(req: Request, total: number): number {
  const raw = String(req.params['position']);
  if (!POSITIVE.test(raw)) throw new RequestValidationError([{ loc: ['path', 'position'], msg: 'the position is an event’s version in the stream (a positive integer)', type: 'type_error.integer' }]);
  const position = Number(raw);
  if (position > total) throw new HttpError(404, `the history has ${total} events; there is no event ${position}`);
  return position;
}
