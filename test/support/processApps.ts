import type { Express, RequestHandler } from 'express';
import { createControlPlaneApp } from '#services/control-plane/app.ts';
import { controlPlaneContext } from '#services/control-plane/controlPlaneProcess.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { createMetrics } from '#shared/http/metrics.ts';
import { silentLogger } from '#shared/log.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { createWebApp } from '#web/app.ts';
import { oidcRoutes } from '#web/auth/oidc.routes.ts';
import type { WebContext } from '#web/context.ts';
import { controlPlaneClient } from '#web/controlPlaneClient.ts';
import { loadWebSettings } from '#web/web.settings.ts';
import { templateEnvironment } from '#web/webProcess.ts';
import type { TestPlatform } from './platform.ts';

/** The control-plane's express app, built by its own factory on the platform's infrastructure (not listening). */
export async function controlPlaneApp(platform: TestPlatform): Promise<Express> {
  return createControlPlaneApp(await controlPlaneContext(platform.infra, platform.config, silentLogger));
}

/**
 * Web's express app, built by its own factory (not listening) with every optional part on, as a
 * deployment with an identity provider runs it. Sessions are irrelevant to which routes exist.
 */
export function webApp(platform: TestPlatform): Express {
  const secrets = resolvePlatformSecrets(platform.config);
  const controlPlaneUrl = platform.urls['controlPlane']!;
  const ctx: WebContext = {
    readModel: platform.infra.db.withSchema('read_model'),
    db: platform.infra.db,
    controlPlane: controlPlaneClient(controlPlaneUrl, secrets.serviceToken),
    settings: loadWebSettings({
      FORJA_PUBLIC_URL: 'http://127.0.0.1:1',
      FORJA_OIDC_ISSUER: 'http://127.0.0.1:1',
      FORJA_OIDC_CLIENT_ID: 'forja',
      FORJA_OIDC_CLIENT_SECRET: 'secret',
      FORJA_OIDC_ALLOWED_DOMAINS: 'example.com',
    }),
    blobs: createFsBlobStore(platform.config.FORJA_DATA_DIR),
    webhookSecret: secrets.webhookSecret,
    hookBaseUrl: controlPlaneUrl,
    templates: templateEnvironment(),
    metrics: createMetrics('forja_web_'),
    logger: silentLogger,
  };
  const noSessions: RequestHandler = (_req, _res, next) => next();
  return createWebApp(ctx, { session: noSessions, extraRoutes: [(router) => oidcRoutes(router, ctx)] });
}
