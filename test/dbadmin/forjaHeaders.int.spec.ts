import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { silentLogger } from '#shared/log.ts';
import type { WebContext } from '#web/context.ts';
import { toolProxy } from '#web/tools/toolProxy.ts';

const listening = (server: Server) => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

/**
 * PHP's built-in server reads `X_Forja_Dbadmin_Password` as it reads `X-Forja-Dbadmin-Password`
 * (HTTP_X_FORJA_DBADMIN_PASSWORD, the last one sent wins), so the proxy must drop both spellings
 * the browser sends, whatever web injects after.
 */
describe('tool proxies drop the X-Forja-* headers a browser sends', () => {
  let tool: Server;
  let web: Server;
  let seen: IncomingHttpHeaders;
  let url: string;

  before(async () => {
    tool = createServer((req, res) => {
      seen = req.headers;
      res.end('tool');
    });
    const target = await listening(tool);
    const ctx = { logger: silentLogger } as unknown as WebContext;
    const proxy = toolProxy(ctx, { target, label: 'A tool', injectHeaders: (req): Record<string, string> => (req.url === '/injected' ? { 'x-forja-dbadmin-user': 'from web' } : {}) });
    web = createServer(express().use(proxy.handle));
    url = await listening(web);
  });
  after(() => {
    for (const server of [web, tool]) {
      server?.closeAllConnections();
      server?.close();
    }
  });

  const forged = { 'X-Forja-Dbadmin-User': 'postgres', X_Forja_Dbadmin_Password: 'guess', 'x_forja-dbadmin-database': 'postgres', 'X-Other': 'kept' };

  it('when web injects none', async () => {
    expect((await fetch(`${url}/plain`, { headers: forged })).status).to.equal(200);
    expect(Object.keys(seen).filter((name) => name.replaceAll('_', '-').startsWith('x-forja-'))).to.deep.equal([]);
    expect(seen['x-other']).to.equal('kept');
  });

  it('when web injects its own, which are the only ones to arrive', async () => {
    expect((await fetch(`${url}/injected`, { headers: forged })).status).to.equal(200);
    expect(Object.entries(seen).filter(([name]) => name.replaceAll('_', '-').startsWith('x-forja-'))).to.deep.equal([['x-forja-dbadmin-user', 'from web']]);
  });
});
