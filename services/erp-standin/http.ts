import { createServer, type Server } from 'node:http';

const LOGIN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Login | ERP stand-in</title></head>
<body><main><h1>ERP stand-in</h1>
<p>This instance runs Forja's ERP stand-in, a test double of the ERP's command line and HTTP surface.</p>
<form method="post" action="/web/login"><label>Email <input name="login"></label>
<label>Password <input name="password" type="password"></label><button>Log in</button></form></main></body></html>
`;

/** `/web/health` and `/web/login`, the HTTP surface Forja's health checks and proxies touch. */
export function standinServer(database: string, log: (level: string, logger: string, message: string) => void): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    log('INFO', 'werkzeug', `${req.method} ${req.url} HTTP/1.1`);
    if (path === '/web/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'pass', database }));
    } else if (path === '/web/login') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LOGIN_PAGE);
    } else if (path === '/' || path === '/web') {
      res.writeHead(303, { location: '/web/login' }).end();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found\n');
    }
  });
}
