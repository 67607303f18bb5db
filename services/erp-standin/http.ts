import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { DatabaseManager } from './databaseManager.ts';
import { databaseRoute } from './databaseRoutes.ts';
import { majorOf } from './version.ts';

type Log = (level: string, logger: string, message: string) => void;

/** What the HTTP surface needs to know about the running ERP. */
export interface ServerState {
  database: string;
  /** Settles once the database is loaded: until then a request for it waits, as on the real ERP. */
  loaded: Promise<void>;
  /** `proxy_mode`: forwarded headers are honoured (with X-Forwarded-Host only). */
  proxyMode: boolean;
  /** `workers`: above 0, `/websocket` is served only on the gevent port. */
  workers: number;
  geventPort: number;
  /** FORJA_STANDIN_VERSION, undefined for none (plays the latest rules). */
  version: string | undefined;
  /** Whether the database server accepts a connection (`/web/health?db_server_status=1`). */
  dbServerUp: () => Promise<boolean>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The login page; `<base href>` shows the URL root the ERP computed for this request (see requestInfo). */
const loginPage = (urlRoot: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><base href="${escapeHtml(urlRoot)}"><title>Login | ERP stand-in</title></head>
<body><main><h1>ERP stand-in</h1>
<p>This instance runs Forja's ERP stand-in, a test double of the ERP's command line and HTTP surface.</p>
<form method="post" action="/web/login"><label>Email <input name="login"></label>
<label>Password <input name="password" type="password"></label><button>Log in</button></form></main></body></html>
`;

/** PATH_INFO as the WSGI server hands it to the routing (werkzeug/serving.py): percent-decoded, `%2F` included. */
function pathInfo(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The last value of a forwarded header: ProxyFix trusts one proxy hop. */
const lastValue = (header: string | string[] | undefined): string | undefined =>
  (Array.isArray(header) ? header.join(',') : header)?.split(',').at(-1)?.trim() || undefined;

/**
 * The URL root and client address the ERP computes for a request (odoo/http.py, `Application.__call__`):
 * only with `proxy_mode` AND an `X-Forwarded-Host` header does it apply werkzeug's ProxyFix
 * (x_for=1, x_proto=1, x_host=1: the last X-Forwarded-For, -Proto and -Host values win);
 * otherwise the URL is `http://` plus the Host header and the client is the socket's peer, the proxy.
 */
export function requestInfo(req: IncomingMessage, proxyMode: boolean): { urlRoot: string; remoteAddr: string } {
  const socketPeer = req.socket.remoteAddress ?? '';
  const forwardedHost = lastValue(req.headers['x-forwarded-host']);
  if (proxyMode && forwardedHost) {
    const scheme = lastValue(req.headers['x-forwarded-proto']) ?? 'http';
    return { urlRoot: `${scheme}://${forwardedHost}/`, remoteAddr: lastValue(req.headers['x-forwarded-for']) ?? socketPeer };
  }
  return { urlRoot: `http://${req.headers.host ?? ''}/`, remoteAddr: socketPeer };
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));

/**
 * `/web/health` (addons/web/controllers/home.py): 200 as soon as HTTP is up; from 17.0,
 * `?db_server_status=1` also connects to the database server and answers 500 with
 * `status: fail` when it cannot (16.0 drops the unknown parameter).
 */
async function health(res: ServerResponse, query: URLSearchParams, state: ServerState): Promise<void> {
  const asked = query.get('db_server_status');
  if (!asked || asked === '0' || (state.version && majorOf(state.version) < 17)) {
    json(res, 200, { status: 'pass', database: state.database });
    return;
  }
  const up = await state.dbServerUp();
  json(res, up ? 200 : 500, { status: up ? 'pass' : 'fail', db_server_status: up, database: state.database });
}

function handler(state: ServerState, manager: DatabaseManager, log: Log) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = pathInfo(mark < 0 ? url : url.slice(0, mark));
    const query = mark < 0 ? '' : url.slice(mark);
    log('INFO', 'werkzeug', `${req.method} ${req.url} HTTP/1.1`);
    const failed = (error: unknown) => {
      log('ERROR', 'odoo.http', `${path}: ${(error as Error).message}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('500: Internal Server Error\n');
    };
    if (path.includes('//')) {
      // werkzeug's Map(merge_slashes=True): a path with repeated slashes is redirected (308 keeps a POST a POST) to the merged one.
      res.writeHead(308, { location: `${encodeURI(path.replace(/\/{2,}/g, '/'))}${query}` }).end();
    } else if (path === '/web/health') {
      health(res, new URLSearchParams(query), state).catch(failed);
    } else if (path === '/web/login') {
      // The request needs the database's registry: while it loads, the real ERP's request waits for
      // the registry lock (odoo/service/server.py, ThreadedServer.run holds it around preload_registries).
      state.loaded.then(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(requestInfo(req, state.proxyMode).urlRoot)), failed);
    } else if (path === '/web/standin/request') {
      // Stand-in only: what the ERP computed for this request (URL root, client address), for tests of proxy mode.
      json(res, 200, requestInfo(req, state.proxyMode));
    } else if (path === '/websocket') {
      // A plain GET fails the handshake check first (addons/bus/websocket.py, `_assert_handshake_validity`).
      res.writeHead(400, { 'content-type': 'text/plain' }).end('400: Bad Request: Empty or missing header(s): connection, upgrade, sec-websocket-key, sec-websocket-version\n');
    } else if (path.startsWith('/web/database/')) {
      databaseRoute(req, res, path, manager)
        .then((served) => served || res.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found\n'))
        .catch(failed);
    } else if (path === '/' || path === '/web') {
      res.writeHead(303, { location: '/web/login' }).end();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found\n');
    }
  };
}

/**
 * `/websocket` upgrades (addons/bus/websocket.py, `WebsocketConnectionHandler.open_connection`):
 * the connection needs the raw socket, which only the threaded server and the gevent worker hand
 * to the request (odoo/service/server.py). An HTTP worker of the multi-process mode has none, so
 * there the request fails with "Couldn't bind the websocket…" and a 500.
 */
function upgrades(server: Server, sockets: WebSocketServer, servesWebsocket: boolean, state: ServerState, log: Log): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = pathInfo((req.url ?? '/').split('?')[0]!);
    log('INFO', 'werkzeug', `${req.method} ${req.url} HTTP/1.1 (upgrade)`);
    if (path !== '/websocket') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    } else if (!servesWebsocket) {
      log('ERROR', 'odoo.http', `Exception during request handling.\nRuntimeError: Couldn't bind the websocket. Is the connection opened on the evented port (${state.geventPort})?`);
      socket.end('HTTP/1.1 500 INTERNAL SERVER ERROR\r\nContent-Type: text/plain\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    } else {
      sockets.handleUpgrade(req, socket, head, () => undefined);
    }
  });
}

/** The ERP's listening servers: the HTTP port, and with workers the gevent port that serves `/websocket`. */
export interface StandinServers {
  http: Server;
  gevent: Server | undefined;
  /** Closes both and every open connection, websockets included. */
  close: (done: () => void) => void;
}

/** `/web/health`, `/web/login`, `/websocket` and the database manager, on the HTTP port and (workers > 0) the gevent port. */
export function standinServers(state: ServerState, manager: DatabaseManager, log: Log): StandinServers {
  const sockets = new WebSocketServer({ noServer: true });
  const http = createServer(handler(state, manager, log));
  upgrades(http, sockets, state.workers === 0, state, log);
  let gevent: Server | undefined;
  if (state.workers > 0) {
    gevent = createServer(handler(state, manager, log));
    upgrades(gevent, sockets, true, state, log);
  }
  const close = (done: () => void) => {
    for (const client of sockets.clients) client.terminate();
    const servers = [http, gevent].filter((server) => server?.listening) as Server[];
    let left = servers.length;
    if (left === 0) return done();
    for (const server of servers) {
      server.close(() => --left === 0 && done());
      server.closeAllConnections();
    }
  };
  return { http, gevent, close };
}
