import { createServer, type Server } from 'node:http';
import type { DatabaseManager } from './databaseManager.ts';
import { databaseRoute } from './databaseRoutes.ts';

const LOGIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Login | ERP stand-in</title></head>
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

/** `/web/health` and `/web/login`, the HTTP surface Forja's health checks and proxies touch, and the database manager. */
export function standinServer(database: string, manager: DatabaseManager, log: (level: string, logger: string, message: string) => void): Server {
  return createServer((req, res) => {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = pathInfo(mark < 0 ? url : url.slice(0, mark));
    const query = mark < 0 ? '' : url.slice(mark);
    log('INFO', 'werkzeug', `${req.method} ${req.url} HTTP/1.1`);
    if (path.includes('//')) {
      // werkzeug's Map(merge_slashes=True): a path with repeated slashes is redirected (308 keeps a POST a POST) to the merged one.
      res.writeHead(308, { location: `${encodeURI(path.replace(/\/{2,}/g, '/'))}${query}` }).end();
    } else if (path === '/web/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'pass', database }));
    } else if (path === '/web/login') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LOGIN_PAGE);
    } else if (path.startsWith('/web/database/')) {
      databaseRoute(req, res, path, manager)
        .then((served) => served || res.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found\n'))
        .catch((error: unknown) => {
          log('ERROR', 'odoo.http', `${path}: ${(error as Error).message}`);
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('500: Internal Server Error\n');
        });
    } else if (path === '/' || path === '/web') {
      res.writeHead(303, { location: '/web/login' }).end();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found\n');
    }
  });
}
