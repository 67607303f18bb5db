import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestHandler, Router } from 'express';
import { ruleFor, type Method } from '#shared/auth/authorizationTable.ts';
import { resolve } from 'node:path';
import { configSchema } from '#shared/config/config.schema.ts';
import { SocketBeneathAgent } from '#shared/fs/socketBeneath.ts';
import { MAIL_CATCHER_OS_USER, MAIL_CATCHER_SOCKET } from '#shared/local/mailCatcherSocket.ts';
import { ensureSystemUser } from '#shared/local/systemUser.ts';
import { HttpError } from '#shared/http/errors.ts';
import type { WebContext } from '../context.ts';
import { routeAfter } from '../http/route.ts';
import { dbAdminTool, type DbAdminTarget } from './dbAdminTool.ts';
import { toolProxy, type ToolProxy } from './toolProxy.ts';

/** A tool web proxies under `prefix` (`/mails`): its routes are `${prefix}{/*path}` in the authorization table. */
export interface WebTool {
  prefix: string;
  proxy: ToolProxy;
}

/** Where web finds the shared tools. */
export interface ToolTargets {
  /** FORJA_DATA_DIR: maildev's web UI is a unix socket in its folder there (mailCatcherSocket.ts). */
  dataDir: string;
  /** Prometheus (FORJA_MONITORING_PORT); unset = its default port. */
  monitoringPort?: number;
  /** The `Authorization` header Prometheus asks for (monitoringAuthorization of the master key), added by the proxy; unset: none. */
  monitoringAuthorization?: string;
  /** Adminer (FORJA_DBADMIN_PORT, unset = its default) and how web derives an instance role's password. */
  dbAdmin?: Partial<DbAdminTarget>;
}

/** Spec §4.8's methods; HEAD is served by the GET route. */
const TOOL_METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Who maildev runs as: web reaches only a socket of that account (never one a link leads to). */
function mailCatcherUid(): number {
  return process.getuid?.() === 0 ? ensureSystemUser(MAIL_CATCHER_OS_USER).uid : (process.getuid?.() ?? -1);
}

export const toolPath = (tool: WebTool): string => `${tool.prefix}{/*path}`;

/**
 * The shared tools: the mail catcher (maildev, serving its UI under /mails itself) and monitoring
 * (Prometheus, under /monitoring). Neither is instance activity: reading mail or graphs wakes no ERP.
 */
export function webTools(ctx: WebContext, targets: ToolTargets): WebTool[] {
  // maildev's UI is AngularJS 1, which compiles its templates' expressions with `new Function`.
  const mailCatcher = toolProxy(ctx, {
    target: 'http://127.0.0.1',
    agent: new SocketBeneathAgent(() => ({ base: resolve(targets.dataDir), relative: MAIL_CATCHER_SOCKET, uid: mailCatcherUid() })),
    label: 'The mail catcher',
    scriptSources: ["'unsafe-eval'"],
    forceResponseHeaders: senderContentHeaders,
  });
  // Debian's Prometheus serves its classic UI, whose pages set its path prefix and version in an
  // inline script: a hash of it would change with every package update, so its pages may run inline scripts.
  const monitoringPort = targets.monitoringPort ?? configSchema.properties.FORJA_MONITORING_PORT.default;
  const monitoring = toolProxy(ctx, {
    target: `http://127.0.0.1:${monitoringPort}`,
    label: 'Monitoring (Prometheus)',
    scriptSources: ["'unsafe-inline'"],
    // Prometheus asks every request for the monitoring secret: web adds it after its own sign-in check, the browser never sees it.
    ...(targets.monitoringAuthorization ? { injectHeaders: () => ({ authorization: targets.monitoringAuthorization! }) } : {}),
    downAdvice: 'Try again shortly; if it persists, tell your administrator (npm start runs Prometheus when the Debian package prometheus is installed and FORJA_MONITORING is not false).',
  });
  // Adminer (under /dbadmin/<slug>/) opens one instance's database per path, and counts as that instance's activity.
  const dbAdmin = dbAdminTool(ctx, { port: configSchema.properties.FORJA_DBADMIN_PORT.default, ...targets.dbAdmin });
  return [{ prefix: '/mails', proxy: mailCatcher }, { prefix: '/monitoring', proxy: monitoring }, dbAdmin];
}

/** maildev's routes that serve what a sender wrote: a message's HTML, its attachments, the raw message. */
const SENDER_CONTENT = /^\/mails\/email\/[^/?]+\/(html|attachment\/[^?]*|download|source)(?:\?|$)/;

/**
 * What a sender wrote never runs as a page, not even on the mail catcher's own tools host (issue
 * 24: an HTML attachment loading another attachment as a script ran on web's origin with an admin's
 * session). A message's HTML, which maildev's page frames, is a sandboxed document of no origin,
 * running no script; attachments and raw messages are downloads of a type nothing executes, which
 * nosniff keeps from being a script.
 */
export function senderContentHeaders(path: string): Record<string, string> | undefined {
  const match = SENDER_CONTENT.exec(path);
  if (!match) return undefined;
  if (match[1] === 'html') return { 'Content-Security-Policy': "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'", 'X-Content-Type-Options': 'nosniff' };
  return { 'Content-Type': 'application/octet-stream', 'Content-Disposition': 'attachment', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "sandbox; default-src 'none'" };
}

/**
 * Registers every tool's routes through the authorization table; `before` loads the session and its
 * user. Tools are served on their own origin (origin/toolsServer.ts): a GET on web's old tool path
 * is the way in (`open`, a 303 with a one-time token), and nothing else of a tool answers on web's origin.
 */
export function toolRoutes(router: Router, tools: WebTool[], before: RequestHandler[], open: RequestHandler): void {
  const gone: RequestHandler = (_req, _res, next) => next(new HttpError(404, 'Tools are served on their own origin: open them from their link in Forja.'));
  for (const tool of tools) for (const method of TOOL_METHODS) routeAfter(router, method, toolPath(tool), before, method === 'GET' ? open : gone);
}

/** The tool a request path belongs to, if any; a `:name` segment of a prefix (`/instances/:slug/editor/proxy`) matches any one segment. */
export function toolFor(tools: WebTool[], url: string | undefined): WebTool | undefined {
  const path = (url ?? '').split('?', 1)[0] ?? '';
  return tools.find((tool) => prefixPattern(tool.prefix).test(path));
}

function prefixPattern(prefix: string): RegExp {
  const segments = prefix.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}(?:/|$)`);
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The access the table gives a tool's WebSocket: that of its GET route. */
export const upgradeAccess = (tool: WebTool) => ruleFor('web', 'GET', toolPath(tool)).access;
