import type { Agent, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import type { WebContext } from '../context.ts';
import { render } from '../http/render.ts';
import { forwardScrubbed } from './scrubbedResponse.ts';

/** Forja's session cookie: a tool behind the proxy never sees it (it would be a key to Forja). */
const SESSION_COOKIE = 'forja.sid';
/** The tools origin's own cookie (origin/toolSignIn.ts): it signs in to Forja's proxy, not to the tool. */
const TOOL_COOKIE = 'forja.tool';

export interface ToolProxyOptions {
  /** Where the tool listens (`http://127.0.0.1:1080`); the request path is forwarded as it is. */
  target: string;
  /** What the 502 page says is down ("The mail catcher"). */
  label: string;
  /** Called for every request and WebSocket let through; per-instance tools count it as activity for the sleep sweep. */
  onActivity?: (req: IncomingMessage) => void;
  /** Extra script sources the tool's own pages need beyond 'self' (its CSP replaces Forja's on its paths). */
  scriptSources?: string[];
  /** How connections to the tool are made (a socket checked at every connection: SocketBeneathAgent). */
  agent?: Agent;
  /** Where this request goes instead of `target` (a per-instance tool: its port or unix socket). */
  router?: (req: IncomingMessage) => ProxyTarget;
  /** Headers added to every request and WebSocket sent to the tool (its secret); the browser never sees them. */
  injectHeaders?: (req: IncomingMessage) => Record<string, string>;
  /** The path the tool gets (a tool served at / has web's prefix taken off). */
  pathRewrite?: (path: string, req: IncomingMessage) => string;
  /** Response headers dropped on the way back (a tool's own CORS answer, say: tools are same-origin only). */
  hideResponseHeaders?: string[];
  /** Response headers set on the way back, whatever the tool said, by request path (what a sender wrote, served as a download). */
  forceResponseHeaders?: (path: string) => Record<string, string> | undefined;
  /** What the 502 page tells the user to do; unset = the shared tools' advice (npm start starts them). */
  downAdvice?: string;
  /** A secret the tool may echo (its token): taken out of every response's headers and HTML pages (scrubbedResponse.ts). */
  scrubFromResponses?: (req: IncomingMessage) => string;
}

/** A tool's address: a URL, or a unix socket only Forja can reach. */
export type ProxyTarget = string | { socketPath: string };

/**
 * The policy for a tool's pages: Forja's pages' policy would break a tool's UI, so each tool gets
 * one of its own, still same-origin only, with just the script sources it needs added.
 */
export function toolContentSecurityPolicy(scriptSources: string[] = []): string {
  return [
    "default-src 'self'",
    `script-src ${["'self'", ...scriptSources].join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

export interface ToolProxy {
  /** Express handler for the tool's routes on the tools origin (origin/toolsServer.ts), which has checked the user and the Origin of writes; no body parser runs before it. */
  handle: RequestHandler;
  /** Forwards a WebSocket upgrade the caller has already authorized. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** The Cookie header without Forja's session cookie; undefined when nothing is left. */
export function withoutSessionCookie(cookie: string | undefined): string | undefined {
  const kept = (cookie ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && ![SESSION_COOKIE, TOOL_COOKIE].includes(part.split('=', 1)[0] ?? ''));
  return kept.length > 0 ? kept.join('; ') : undefined;
}

type ProxyRequestHeaders = { getHeaderNames(): string[]; setHeader(name: string, value: string): void; removeHeader(name: string): void };

/** Whether a request header is one of the X-Forja-* headers web alone sends tools; `_` counts as `-`, as PHP and CGI read names. */
export const isForjaHeader = (name: string): boolean => name.toLowerCase().replaceAll('_', '-').startsWith('x-forja-');

/** Drops X-Forja-* headers the browser sent: a tool trusts them (the database admin's instance role) only from web. */
function stripForjaHeaders(proxyReq: ProxyRequestHeaders): void {
  for (const name of proxyReq.getHeaderNames()) if (isForjaHeader(name)) proxyReq.removeHeader(name);
}

function stripSessionCookie(proxyReq: { getHeader(name: string): unknown; setHeader(name: string, value: string): void; removeHeader(name: string): void }): void {
  const cookie = withoutSessionCookie(proxyReq.getHeader('cookie') as string | undefined);
  if (cookie === undefined) proxyReq.removeHeader('cookie');
  else proxyReq.setHeader('cookie', cookie);
}

/**
 * An http-proxy-middleware proxy for one tool: every method, bodies streamed both ways (web's body
 * parsers never run on these paths), WebSocket upgrades, and web's own 502 page when the tool is down.
 */
export function toolProxy(ctx: WebContext, options: ToolProxyOptions): ToolProxy {
  const advice = options.downAdvice ?? 'Try again shortly; if it persists, tell your administrator (Forja starts it with npm start).';
  const unavailable = `${options.label} is not running or does not answer at the moment. ${advice}`;
  const inject = (proxyReq: ProxyRequestHeaders, req: IncomingMessage) => {
    stripForjaHeaders(proxyReq);
    for (const [name, value] of Object.entries(options.injectHeaders?.(req) ?? {})) proxyReq.setHeader(name, value);
    // Pages are cleaned of the tool's secret on the way back, which needs them uncompressed.
    if (options.scrubFromResponses) proxyReq.setHeader('accept-encoding', 'identity');
  };
  const policy = toolContentSecurityPolicy(options.scriptSources);
  const events: Plugin<Request, Response> = (proxyServer) => {
    proxyServer.on('proxyReq', (proxyReq, req) => {
      stripSessionCookie(proxyReq);
      inject(proxyReq, req);
    });
    proxyServer.on('proxyReqWs', (proxyReq, req) => {
      stripSessionCookie(proxyReq);
      inject(proxyReq, req);
    });
    proxyServer.on('proxyRes', (proxyRes, req, res) => {
      for (const name of options.hideResponseHeaders ?? []) delete proxyRes.headers[name];
      const forced = options.forceResponseHeaders?.((req as Request).originalUrl ?? req.url ?? '');
      for (const [name, value] of Object.entries(forced ?? {})) proxyRes.headers[name.toLowerCase()] = value;
      if (options.scrubFromResponses) forwardScrubbed(proxyRes, req, res, options.scrubFromResponses(req));
    });
    proxyServer.on('error', (error, req, res) => {
      if (!('writeHead' in res)) return void res.destroy();
      const expressRes = res as Response;
      if (expressRes.headersSent) return void expressRes.destroy();
      ctx.logger.warn({ err: error, path: req.url, tool: options.label }, 'tool did not answer');
      expressRes.status(502);
      render(ctx, req as Request, expressRes, 'error.njk', { status: 502, title: 'Tool unavailable', message: unavailable });
    });
  };
  const proxy = createProxyMiddleware<Request, Response>({
    target: options.target,
    ...(options.router ? { router: options.router as (req: Request) => string } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.pathRewrite ? { pathRewrite: options.pathRewrite as (path: string, req: Request) => string } : {}),
    changeOrigin: false,
    xfwd: true,
    // With a secret to take out, web writes the responses itself (forwardScrubbed) instead of http-proxy.
    selfHandleResponse: options.scrubFromResponses !== undefined,
    ejectPlugins: true,
    plugins: [events],
  });
  return {
    handle: (req, res, next) => {
      // htmx followed a boosted link or a sign-in redirect here: a tool is a whole application, not a
      // fragment for Forja's layout, so the browser loads it as a page of its own.
      if (req.get('hx-request') === 'true') return void res.status(200).set('HX-Redirect', req.originalUrl).end();
      options.onActivity?.(req);
      res.setHeader('Content-Security-Policy', policy);
      void proxy(req, res, next);
    },
    upgrade: (req, socket, head) => {
      options.onActivity?.(req);
      proxy.upgrade(req, socket as never, head);
    },
  };
}
