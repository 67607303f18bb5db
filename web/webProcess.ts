import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import nunjucks from 'nunjucks';
import { migrateReadModel } from '#projections/migrations/index.ts';
import { createFsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import { instanceAddress } from '#shared/http/instanceAddress.ts';
import { monitoringAuthorization } from '#shared/monitoring/monitoringSecret.ts';
import { orExit } from '#shared/config/config.ts';
import { listen } from '#shared/http/listen.ts';
import { createMetrics } from '#shared/http/metrics.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import type { StartProcess } from '#shared/platform/process.ts';
import { createWebApp } from './app.ts';
import { oidcRoutes } from './auth/oidc.routes.ts';
import type { WebContext } from './context.ts';
import { controlPlaneClient } from './controlPlaneClient.ts';
import { sessionMiddleware } from './http/session.ts';
import { loadShellSettings } from './shell/shell.settings.ts';
import { webShell } from './shell/webShell.ts';
import { instanceTools } from './tools/instanceTools/instanceToolsSetup.ts';
import { instanceToolSpecs } from './tools/instanceTools/instanceTools.ts';
import { parseUidRange } from '#shared/local/tenantAccount.ts';
import { toolSigningKey, toolTokens } from './tools/origin/toolTokens.ts';
import { toolsServer } from './tools/origin/toolsServer.ts';
import { toolHost, toolOrigin } from './tools/origin/toolHosts.ts';
import type { ToolSignIn } from './tools/origin/openTool.ts';
import { webTools } from './tools/webTools.ts';
import { loadWebSettings } from './web.settings.ts';

const UPLOAD_REQUEST_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/**
 * Templates autoescape everything; a template is never built from user input. lstripBlocks drops
 * the indentation before a `{% tag %}` alone on its line, which would otherwise be served as
 * trailing whitespace (html-validate's no-trailing-whitespace). It leaves `{# comments #}` alone:
 * a comment on a line of its own starts at the line's beginning.
 */
export function templateEnvironment(): nunjucks.Environment {
  return new nunjucks.Environment(new nunjucks.FileSystemLoader(fileURLToPath(new URL('./templates', import.meta.url)), { noCache: false }), {
    autoescape: true,
    throwOnUndefined: false,
    lstripBlocks: true,
  });
}

export const startWebProcess: StartProcess = async (infra, config, logger) => {
  const settings = orExit(() => loadWebSettings());
  const secrets = resolvePlatformSecrets(config);
  await migrateReadModel(infra.db);
  const controlPlaneUrl = config.FORJA_CONTROL_PLANE_URL ?? `http://127.0.0.1:${config.FORJA_CONTROL_PLANE_PORT}`;
  const ctx: WebContext = {
    readModel: infra.db.withSchema('read_model'),
    db: infra.db,
    controlPlane: controlPlaneClient(controlPlaneUrl, secrets.serviceToken),
    settings,
    blobs: createFsBlobStore(config.FORJA_DATA_DIR),
    webhookSecret: secrets.webhookSecret,
    hookBaseUrl: settings.FORJA_HOOK_BASE_URL ?? controlPlaneUrl,
    templates: templateEnvironment(),
    metrics: createMetrics('forja_web_'),
    logger: logger.child({ process: 'web' }),
  };
  // The ERP router's address of each instance, for the instance page (instances/_status.njk).
  if (config.FORJA_ERP_ROUTER) ctx.templates.addGlobal('erpAddress', (slug: string) => instanceAddress(slug, config.FORJA_INSTANCE_DOMAIN, config.FORJA_ERP_ROUTER_PORT));
  const sessions = await sessionMiddleware(infra.db, infra.pool, secrets.masterKey);
  // Per-instance tools start on first use and stop when idle, or here, when web stops.
  const uidRange = parseUidRange(config.FORJA_TENANT_UID_RANGE);
  const perInstance = instanceTools(ctx, config.FORJA_DATA_DIR, instanceToolSpecs, uidRange);
  const tools = [...webTools(ctx, { dataDir: config.FORJA_DATA_DIR, monitoringPort: config.FORJA_MONITORING_PORT, monitoringAuthorization: monitoringAuthorization(secrets.masterKey), dbAdmin: { port: config.FORJA_DBADMIN_PORT, instanceCredentials: (database) => instanceCredentials(secrets.masterKey, database) } }), ...perInstance.tools];
  const prometheusUrl = config.FORJA_MONITORING ? `http://127.0.0.1:${config.FORJA_MONITORING_PORT}/monitoring` : null;
  // The tools' own origin listens first: its port (0 in tests) goes into every link to it.
  const toolSignIn: ToolSignIn = { origin: { domain: config.FORJA_TOOLS_DOMAIN, port: config.FORJA_TOOLS_PORT }, tokens: toolTokens(toolSigningKey(secrets.masterKey)) };
  let webUrl = settings.FORJA_PUBLIC_URL ?? '';
  const toolsOrigin = toolsServer(ctx, tools, toolSignIn, () => webUrl);
  const toolsListening = await listen(toolsOrigin.app, config.FORJA_HOST, config.FORJA_TOOLS_PORT);
  toolSignIn.origin.port = Number(new URL(toolsListening.url).port);
  const app = createWebApp(ctx, { session: sessions.middleware, tools, prometheusUrl, prometheusAuthorization: monitoringAuthorization(secrets.masterKey), toolSignIn, extraRoutes: settings.FORJA_OIDC_ISSUER ? [(router) => oidcRoutes(router, ctx)] : [] });
  const listening = await listen(app, config.FORJA_HOST, config.FORJA_WEB_PORT);
  webUrl ||= listening.url;
  // Node ends a request whose body is not in within 5 minutes; a dump upload of gigabytes takes longer.
  // This is the upload's bound; every other request has FORJA_BODY_TIMEOUT_S (bodyDeadline), and
  // headers, which every request sends before any route can tell it apart, have that too.
  listening.server.requestTimeout = UPLOAD_REQUEST_TIMEOUT_MS;
  listening.server.headersTimeout = settings.FORJA_BODY_TIMEOUT_S * 1000;
  const shell = webShell(ctx, sessions.middleware, { settings: orExit(() => loadShellSettings()), dataDir: config.FORJA_DATA_DIR, masterKey: secrets.masterKey, uidRange });
  // Upgraded connections are out of the HTTP server's reach (closeAllConnections ends only HTTP ones),
  // and one left open would hold the server's close up: web's stop ends them itself.
  const upgraded = new Set<Duplex>();
  const track = (socket: Duplex) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
  };
  // Web's origin upgrades only its own shell's WebSocket; tools upgrade on theirs.
  listening.server.on('upgrade', (req, socket, head) => {
    track(socket);
    if (shell.handles(req.url)) return shell.upgrade(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  toolsListening.server.on('upgrade', (req, socket, head) => {
    track(socket);
    toolsOrigin.upgrade(req, socket, head);
  });
  return {
    name: 'web',
    url: listening.url,
    describe: () => [
      `${listening.url}  sign in at ${listening.url}/login${settings.FORJA_OIDC_ISSUER ? ' (or through the identity provider)' : ''}`,
      `tools origin ${toolsListening.url}, reached as ${toolOrigin(toolHost('mail', undefined, toolSignIn.origin), toolSignIn.origin)}/ and its siblings under ${config.FORJA_TOOLS_DOMAIN}`,
    ],
    stop: async () => {
      // Open shells first, each recorded as closed by the server while the control-plane still answers.
      await shell.close();
      // Then every tool's WebSocket, which would hold the server's close up.
      for (const socket of upgraded) socket.destroy();
      await Promise.all([listening.close(), toolsListening.close(), perInstance.supervisor.stopAll()]);
      await sessions.close();
    },
  };
};
