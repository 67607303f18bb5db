import express, { type Express } from 'express';
import helmet from 'helmet';
import type { ControlPlaneContext } from './context.ts';
import { errorHandler } from './http/errorHandler.ts';
import { operational } from './http/operational.ts';
import { gitHookApi } from './hooks/gitHook.api.ts';
import { identityApi } from './identity/identity.api.ts';
import { identityInternal } from './identity/identity.internal.ts';
import { instanceApi } from './instances/instance.api.ts';
import { instanceActivityInternal } from './instances/instanceActivity.internal.ts';
import { instanceInternal } from './instances/instance.internal.ts';
import { migrationApi } from './migrations/migration.api.ts';
import { migrationInternal } from './migrations/migration.internal.ts';
import { migrationReportApi } from './migrations/migrationReport.api.ts';
import { migrationHistoryApi } from './migrations/history/migrationHistory.api.ts';
import { recipeApi } from './migrations/recipe.api.ts';
import { migrationReadinessApi } from './migrations/migrationReadiness.api.ts';
import { migrationResyncApi } from './migrations/migrationResync.api.ts';
import { projectApi } from './projects/project.api.ts';
import { projectInternal } from './projects/project.internal.ts';
import { projectKeysApi } from './projects/projectKeys.api.ts';
import { sshKeyApi } from './sshKeys/sshKey.api.ts';

/** JSON bodies above this are refused with 413: no command of ours needs more. */
const BODY_LIMIT = '64kb';

/** The control-plane's express app: operational endpoints, the JSON API and web's internal commands. */
export function createControlPlaneApp(ctx: ControlPlaneContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(
    helmet({
      // Swagger UI (at /docs) sets inline styles; scripts stay same-origin only. TLS (and so HSTS
      // and upgrading requests) is the reverse proxy's business: Forja itself may run on plain HTTP.
      contentSecurityPolicy: { directives: { 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'], 'upgrade-insecure-requests': null } },
      strictTransportSecurity: false,
    }),
  );
  app.use(ctx.metrics.measureRequests);
  gitHookApi(app, ctx); // before the JSON parser: the hook reads its own raw body, up to 5 MB
  app.use(express.json({ limit: BODY_LIMIT }));
  const router = express.Router();
  operational(router, ctx);
  identityApi(router, ctx);
  projectApi(router, ctx);
  projectKeysApi(router, ctx);
  sshKeyApi(router, ctx);
  instanceApi(router, ctx);
  migrationApi(router, ctx);
  migrationReportApi(router, ctx);
  migrationHistoryApi(router, ctx);
  recipeApi(router, ctx);
  migrationResyncApi(router, ctx);
  migrationReadinessApi(router, ctx);
  identityInternal(router, ctx);
  projectInternal(router, ctx);
  instanceInternal(router, ctx);
  instanceActivityInternal(router, ctx);
  migrationInternal(router, ctx);
  app.use(router);
  app.use((_req, res) => void res.status(404).json({ detail: 'no such endpoint; see /docs' }));
  app.use(errorHandler(ctx.logger));
  return app;
}
