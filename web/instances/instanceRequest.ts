import type { Request, Response } from 'express';
import type { Role } from '#shared/auth/roles.ts';

/** The signed-in user (the route's guard let them through). */
export const actorOf = (res: Response) => res.locals['user'] as { user_id: string; email: string; role: Role };

/**
 * A query parameter as one string (the first when repeated), at most 200 characters, without
 * control characters (no name or slug has them, and PostgreSQL refuses a NUL); '' when absent.
 */
export function queryString(req: Request, name: string): string {
  const value = req.query[name];
  const first = Array.isArray(value) ? value[0] : value;
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  return typeof first === 'string' ? first.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 200) : '';
}

export function pageNumber(value: string): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** `path?query` with the non-empty values only. */
export function withQuery(path: string, values: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(values).filter(([, value]) => value !== '')).toString();
  return query ? `${path}?${query}` : path;
}
