import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import { sql } from 'kysely';
import { configSchema } from '#shared/config/config.schema.ts';
import { HttpError } from '#shared/http/errors.ts';
import { loginRoutes } from './auth/login.routes.ts';
import type { WebContext } from './context.ts';
import { bodyDeadline } from './http/bodyDeadline.ts';
import { checkCsrf } from './http/csrf.ts';
import { errorPages, notFound } from './http/errorPages.ts';
import { loadSessionUser, route } from './http/route.ts';
import { instanceRoutes } from './instances/instances.routes.ts';
import { migrationRoutes } from './migrations/migrations.routes.ts';
import { monitoringRoutes } from './monitoring/monitoring.routes.ts';
import { projectRoutes } from './projects/projects.routes.ts';
import { recipeRoutes } from './recipes/recipes.routes.ts';
import { shellRoutes } from './shell/shell.routes.ts';
import { sshKeyRoutes } from './sshKeys/sshKeys.routes.ts';
import { instanceTools } from './tools/instanceTools/instanceToolsSetup.ts';
import { openTool, type ToolSignIn } from './tools/origin/openTool.ts';
import { toolTokens } from './tools/origin/toolTokens.ts';
import { toolRoutes, webTools, type WebTool } from './tools/webTools.ts';

const here = dirname(fileURLToPath(import.meta.url));
const picoCssDir = join(dirname(createRequire(import.meta.url).resolve('@picocss/pico/package.json')), 'css');

export interface WebAppOptions {
  session: RequestHandler;
  /** Extra routes (the identity-provider login when configured). */
  extraRoutes?: Array<(router: express.Router) => void>;
  /** Proxied tools (mail catcher, …, the instances' notebook editors); unset = the shared tools at their default ports and the instances' tools under the default FORJA_DATA_DIR. */
  tools?: WebTool[];
  /** Where web queries Prometheus for the instance graphs (`http://127.0.0.1:9090/monitoring`); null = monitoring off; unset = the default port. */
  prometheusUrl?: string | null;
  /** The `Authorization` header Prometheus asks for (monitoringAuthorization of the master key); unset: none. */
  prometheusAuthorization?: string;
  /** How web's tool links sign users in to the tools origin; unset = the default tools domain and port, with a key of this process's own. */
  toolSignIn?: ToolSignIn;
}

/** Web's express app: static assets, sessions, CSRF, then pages registered through the authorization table. */
export function createWebApp(ctx: WebContext, options: WebAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.settings.FORJA_TRUST_PROXY);
  app.use(
    helmet({
      // TLS, HSTS and upgrading requests belong to the reverse proxy; Forja may run on plain HTTP.
      contentSecurityPolicy: { directives: { 'upgrade-insecure-requests': null, 'form-action': ["'self'"] } },
      strictTransportSecurity: false,
    }),
  );
  app.use(ctx.metrics.measureRequests);
  app.use(bodyDeadline(ctx.settings.FORJA_BODY_TIMEOUT_S * 1000));
  // Static files are mounted, not routed: routes are registered only through the authorization table.
  app.use('/static', express.static(picoCssDir, { maxAge: '1d', index: false }));
  app.use('/static', express.static(join(here, 'public'), { maxAge: '1h', index: false }));

  const router = express.Router();
  route(router, 'GET', '/health', async (_req, res) => {
    const ok = await sql`select 1`.execute(ctx.db).then(() => true, () => false);
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable' });
  });
  // Prometheus scrapes it (services/monitoring), as it does the control-plane's and padrón's.
  route(router, 'GET', '/metrics', ctx.metrics.serveMetrics);
  // A tool path's GET sends the user to the tool's own origin: no body to parse, nothing to change on web.
  const tools = options.tools ?? [...webTools(ctx, { dataDir: configSchema.properties.FORJA_DATA_DIR.default }), ...instanceTools(ctx, configSchema.properties.FORJA_DATA_DIR.default).tools];
  const signIn = options.toolSignIn ?? { origin: { domain: configSchema.properties.FORJA_TOOLS_DOMAIN.default, port: configSchema.properties.FORJA_TOOLS_PORT.default }, tokens: toolTokens(randomBytes(32)) };
  toolRoutes(router, tools, [options.session, loadSessionUser(ctx)], openTool(tools, signIn));
  router.use(options.session, express.urlencoded({ extended: false, limit: '32kb' }), bodyObject, loadSessionUser(ctx), checkCsrf);
  router.param('slug', slugOnly);
  loginRoutes(router, ctx);
  for (const add of options.extraRoutes ?? []) add(router);
  projectRoutes(router, ctx);
  instanceRoutes(router, ctx);
  shellRoutes(router, ctx);
  migrationRoutes(router, ctx);
  recipeRoutes(router, ctx);
  sshKeyRoutes(router, ctx);
  const prometheusUrl = options.prometheusUrl === undefined ? `http://127.0.0.1:${configSchema.properties.FORJA_MONITORING_PORT.default}/monitoring` : options.prometheusUrl;
  monitoringRoutes(router, ctx, prometheusUrl === null ? undefined : { url: prometheusUrl, ...(options.prometheusAuthorization ? { authorization: options.prometheusAuthorization } : {}) });
  app.use(router);
  app.use(notFound(ctx));
  app.use(errorPages(ctx));
  return app;
}

/** A POST without a form body (no Content-Type, another type) leaves `req.body` undefined in Express 5: handlers read fields of it. */
const bodyObject: RequestHandler = (req, _res, next) => {
  req.body ??= {};
  next();
};

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A `:slug` that no project or instance can have (`%00`, 500 letters) is no page: 404 before any query (PostgreSQL refuses a NUL with an error). */
function slugOnly(_req: Request, _res: Response, next: NextFunction, slug: unknown): void {
  next(typeof slug === 'string' && slug.length <= 64 && SLUG.test(slug) ? undefined : new HttpError(404, 'There is no such project, instance or migration.'));
}
