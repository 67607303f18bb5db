import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { getInstance } from '#projections/instances/instanceDetail.ts';
import { HttpError } from '#shared/http/errors.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import type { InstanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import type { WebContext } from '../context.ts';
import { activityRecorder } from './instanceTools/instanceActivity.ts';
import { toolProxy, type ToolProxy } from './toolProxy.ts';

export const DBADMIN_PREFIX = '/dbadmin';

/** Headers carrying the instance's role to Adminer (read by services/dbadmin/php/forjaAdminer.php). */
export const DBADMIN_HEADERS = { user: 'x-forja-dbadmin-user', password: 'x-forja-dbadmin-password', database: 'x-forja-dbadmin-database' } as const;

const INSTANCE_PATH = /^\/dbadmin\/([a-z0-9-]{1,64})(?:\/|$)/;

/** The instance a /dbadmin/<slug>/… path opens, if it names one. */
export function dbAdminSlug(url: string): string | undefined {
  return INSTANCE_PATH.exec(url.split('?', 1)[0] ?? '')?.[1];
}

/** The instance's own role (NOSUPERUSER, owner of its database only) as Adminer gets it: never the ERP server's admin. */
export function dbAdminHeaders(slug: string, credentialsOf: (database: string) => InstanceCredentials): Record<string, string> {
  const database = databaseName(slug);
  const { user, password } = credentialsOf(database);
  return { [DBADMIN_HEADERS.user]: user, [DBADMIN_HEADERS.password]: password, [DBADMIN_HEADERS.database]: database };
}

export interface DbAdminTarget {
  port: number;
  /** The instance role's credentials, derived as the executor derives them; unset = Adminer gets none and refuses. */
  instanceCredentials?: (database: string) => InstanceCredentials;
}

/**
 * Adminer behind /dbadmin/<slug>/: web looks the instance up and hands Adminer its role in
 * headers on the way through, so the password stays between web and Adminer. The path keeps the
 * slug in every link Adminer makes, so each page reaches the same instance's database.
 */
export function dbAdminTool(ctx: WebContext, target: DbAdminTarget): { prefix: string; proxy: ToolProxy } {
  const headers = new WeakMap<IncomingMessage, Record<string, string>>();
  const proxy = toolProxy(ctx, {
    target: `http://127.0.0.1:${target.port}`,
    label: 'The database admin (Adminer)',
    downAdvice: 'Try again shortly; if it persists, tell your administrator (npm start runs Adminer when the Debian packages adminer, php-cli and php-pgsql are installed and FORJA_DBADMIN is not false).',
    injectHeaders: (req) => headers.get(req) ?? {},
  });
  // Browsing an instance's database is using the instance: the sleep sweep leaves it running.
  const activity = activityRecorder(ctx);
  const handle: RequestHandler = async (req, res, next) => {
    const slug = dbAdminSlug(req.originalUrl);
    if (slug !== undefined && target.instanceCredentials) {
      const instance = await getInstance(ctx.readModel, slug);
      if (!instance || instance.status === 'destroyed') throw new HttpError(404, `There is no instance ${slug}. It may have been destroyed.`);
      if (!instance.provisioned) throw new HttpError(409, `${slug} has no database yet: it gets one when it is first created.`);
      headers.set(req, dbAdminHeaders(slug, target.instanceCredentials));
      const user = res.locals['user'] as { user_id: string } | undefined;
      if (user) activity(user.user_id, slug);
    }
    proxy.handle(req, res, next);
  };
  return { prefix: DBADMIN_PREFIX, proxy: { handle, upgrade: proxy.upgrade } };
}
