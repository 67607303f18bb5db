import { createHmac } from 'node:crypto';
import connectPgSimple from 'connect-pg-simple';
import session from 'express-session';
import type { Request } from 'express';
import { sql, type Kysely } from 'kysely';
import type { Pool } from '#shared/db.ts';

/** A link a flash message offers (a file just made, to download). */
export interface FlashLink {
  href: string;
  text: string;
  /** Served as a download, not a page htmx would swap in. */
  download?: boolean;
}

declare module 'express-session' {
  interface SessionData {
    userId: string;
    csrfToken: string;
    /** `aboutJob`: shown with the job's status where a page has one (see `jobFlash`). */
    flash: Array<{ kind: 'success' | 'error' | 'info'; text: string; aboutJob?: boolean; link?: FlashLink }>;
    /** The identity-provider flow in progress: checked on the callback, then dropped. */
    oidc: { state: string; nonce: string; codeVerifier: string; next: string };
  }
}

const EIGHT_HOURS_MS = 8 * 60 * 60 * 1000;

/**
 * Sessions in PostgreSQL (schema `web`), so any web instance serves any user and a restart logs
 * nobody out. The cookie is httpOnly, sameSite=lax and secure whenever the request came over TLS
 * (directly or, with FORJA_TRUST_PROXY, through a proxy). The signing secret derives from the
 * master key, so there is no extra secret to manage.
 */
export async function sessionMiddleware(db: Kysely<unknown>, pool: Pool, masterKey: Buffer) {
  await sql`create schema if not exists web`.execute(db);
  const PgStore = connectPgSimple(session);
  const store = new PgStore({ pool, schemaName: 'web', tableName: 'sessions', createTableIfMissing: true, pruneSessionInterval: 15 * 60 });
  const middleware = session({
    name: 'forja.sid',
    secret: createHmac('sha256', masterKey).update('forja web session').digest('base64url'),
    store,
    resave: false,
    saveUninitialized: false,
    rolling: true,
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: EIGHT_HOURS_MS },
  });
  return { middleware, close: () => store.close() };
}

/** A new session id for the same visitor: after a login, so a planted session id is worth nothing. */
export function regenerateSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.regenerate((error: unknown) => (error ? reject(error as Error) : resolve())));
}

export function saveSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.save((error: unknown) => (error ? reject(error as Error) : resolve())));
}

export function destroySession(req: Request): Promise<void> {
  return new Promise((resolve) => req.session.destroy(() => resolve()));
}
