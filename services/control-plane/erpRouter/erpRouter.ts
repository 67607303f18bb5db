import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import { getInstance, type InstanceDetailRow } from '#projections/instances/instanceDetail.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { slugFromHost } from '#shared/http/instanceAddress.ts';
import type { Logger } from '#shared/log.ts';
import { isDatabaseManagerPath, normalizedPath } from './closedPaths.ts';
import { closedPage, notFoundPage, notRunningPage, unreachablePage, wakingPage } from './routerPages.ts';

export interface ErpRouterOptions {
  readModel: ReadModel;
  /** FORJA_INSTANCE_DOMAIN: `<slug>.<domain>` names an instance. */
  domain: string;
  /** Asks for a `start` of a sleeping instance; a refusal (another request woke it first) is not an error. */
  wake(slug: string): Promise<void>;
  /** Every request and WebSocket let through to an ERP (activity for the sleep sweep). */
  onVisit(slug: string): void;
  logger: Logger;
}

export interface ErpRouter {
  handle(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** What the router does with a request for an instance in this state. */
type Route = { kind: 'proxy'; url: string; geventUrl?: string } | { kind: 'wake' } | { kind: 'wait'; doing: string } | { kind: 'closed'; status: string } | { kind: 'unknown' };

/** The one place that maps an instance's state to the router's answer. */
export function routeFor(row: Pick<InstanceDetailRow, 'status' | 'url' | 'job_active' | 'job_kind'> & Partial<Pick<InstanceDetailRow, 'gevent_url'>> | undefined): Route {
  if (!row) return { kind: 'unknown' };
  switch (row.status) {
    case 'running':
      if (!row.url) return { kind: 'wait', doing: 'starting' };
      return row.gevent_url ? { kind: 'proxy', url: row.url, geventUrl: row.gevent_url } : { kind: 'proxy', url: row.url };
    case 'sleeping':
      return row.job_active ? { kind: 'wait', doing: row.job_kind === 'start' ? 'waking up' : `busy with a ${row.job_kind} job` } : { kind: 'wake' };
    case 'queued':
    case 'provisioning':
      return { kind: 'wait', doing: row.status === 'queued' ? 'queued' : 'being built' };
    case 'stopped':
    case 'failed':
    case 'destroyed':
      return { kind: 'closed', status: row.status };
    default: {
      const unknown: never = row.status;
      return unknown;
    }
  }
}

/**
 * Where a request routed to `route` goes: `/websocket` to the ERP's gevent process when it has one
 * (workers on: the HTTP workers refuse it, odoo/service/server.py and addons/bus/websocket.py),
 * everything else, and `/websocket` of a threaded ERP, to its HTTP port.
 */
export function targetOf(route: Extract<Route, { kind: 'proxy' }>, url: string | undefined): string {
  return route.geventUrl && normalizedPath(url ?? '/') === '/websocket' ? route.geventUrl : route.url;
}

/**
 * Answers `<slug>.<domain>` with that instance's ERP: requests and WebSocket upgrades go to its
 * current URL through http-proxy-middleware (bodies streamed both ways, the Host kept so the ERP
 * builds its own links with the pretty address), `/websocket` to its gevent process when it runs
 * workers (`targetOf`); a sleeping instance is woken and held on a page
 * that reloads itself; anything else gets a page saying why there is no ERP to show. The ERP's
 * database manager (`/web/database/*`) is never passed on, whatever the instance's state.
 */
export function erpRouter(options: ErpRouterOptions): ErpRouter {
  // The target each request was routed to, decided before the proxy runs.
  const targets = new WeakMap<IncomingMessage, string>();
  const slugs = new WeakMap<IncomingMessage, string>();
  const errors: Plugin = (proxyServer) => {
    proxyServer.on('error', (error, req, res) => {
      const slug = slugs.get(req) ?? 'the instance';
      options.logger.warn({ err: error, slug, path: req.url }, 'ERP did not answer through the router');
      if (!('writeHead' in res)) return void res.destroy();
      if (res.headersSent) return void res.destroy();
      unreachablePage(res, slug);
    });
  };
  const proxy = createProxyMiddleware({
    router: (req) => targets.get(req)!,
    // http-proxy-middleware wants a target beside `router`; every request has its own from `targets`.
    target: 'http://127.0.0.1:9',
    changeOrigin: false,
    // On localhost the router is the ERP's only proxy and says so; under another domain the TLS
    // proxy in front already set X-Forwarded-*, and appending `http` would tell the ERP it is not on https.
    xfwd: options.domain === 'localhost',
    ejectPlugins: true,
    plugins: [errors],
  });

  /** Routes the request by its Host: the ERP's URL is remembered for the proxy; a sleeping instance is woken. */
  async function routeRequest(req: IncomingMessage): Promise<{ slug: string | null; route: Route }> {
    const slug = slugFromHost(req.headers.host, options.domain);
    const route = routeFor(slug ? await getInstance(options.readModel, slug) : undefined);
    if (route.kind === 'proxy') {
      targets.set(req, targetOf(route, req.url));
      slugs.set(req, slug!);
    }
    if (route.kind === 'wake') await options.wake(slug!);
    if (route.kind === 'proxy' || route.kind === 'wake') options.onVisit(slug!);
    return { slug, route };
  }

  /** The page for a request no ERP answers (yet). */
  function answerPage(req: IncomingMessage, res: ServerResponse, slug: string | null, route: Exclude<Route, { kind: 'proxy' }>): void {
    if (route.kind === 'unknown') notFoundPage(res, req.headers.host);
    else if (route.kind === 'wake') wakingPage(res, slug!, 'waking up');
    else if (route.kind === 'wait') wakingPage(res, slug!, route.doing);
    else notRunningPage(res, slug!, route.status);
  }

  const failed = (error: unknown, req: IncomingMessage) => options.logger.error({ err: error, host: req.headers.host, path: req.url }, 'ERP router failed');
  return {
    handle(req, res) {
      if (isDatabaseManagerPath(req.url)) return closedPage(res);
      routeRequest(req)
        .then(({ slug, route }) => {
          if (route.kind !== 'proxy') return answerPage(req, res, slug, route);
          return proxy(req, res, (error?: unknown) => {
            throw error ?? new Error('the ERP proxy passed the request on');
          });
        })
        .catch((error: unknown) => {
          failed(error, req);
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The ERP router failed; see the Forja log.\n');
          else res.destroy();
        });
    },
    upgrade(req, socket, head) {
      if (isDatabaseManagerPath(req.url)) return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      routeRequest(req)
        .then(({ route }) => {
          if (route.kind === 'proxy') return proxy.upgrade(req, socket as Socket, head);
          // No ERP to talk to (yet): the page loaded over HTTP reloads and its script reconnects.
          const status = route.kind === 'unknown' ? '404 Not Found' : '503 Service Unavailable';
          socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
          return undefined;
        })
        .catch((error: unknown) => {
          failed(error, req);
          socket.destroy();
        });
    },
  };
}
