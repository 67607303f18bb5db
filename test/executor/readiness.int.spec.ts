import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { freePort } from '#shared/local/freePort.ts';
import { readinessPaths, waitForReady } from '#services/executor/jobs/healthCheck.ts';

/**
 * Readiness (issue 25, item 5): a started ERP counts as running once its login page for the
 * instance's database answers 200, not when `/web/health` first does (Odoo answers that before
 * the registry is loaded). A fake ERP answers health at once and the login page as told.
 */
describe('readiness of a started ERP (healthCheck.ts)', function () {
  this.timeout(20_000);
  let server: Server;
  let url: string;
  let login: () => number;
  let health: () => number;
  const asked: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      asked.push(req.url ?? '');
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const status = path === '/web/login' ? login() : path === '/web/health' ? health() : 404;
      res.writeHead(status, status === 303 ? { location: '/odoo' } : {}).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    asked.length = 0;
    health = () => 200;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('asks for the instance\'s login page, and on 17.0+ for the database server\'s status too', () => {
    expect(readinessPaths({ database: 'forja_acme', erpVersion: '16.0' })).to.deep.equal(['/web/health', '/web/login?db=forja_acme']);
    expect(readinessPaths({ database: 'forja_acme', erpVersion: '17.0' })).to.deep.equal(['/web/health?db_server_status=1', '/web/login?db=forja_acme']);
    expect(readinessPaths({ database: 'forja_acme', erpVersion: '19.0' })[0]).to.equal('/web/health?db_server_status=1');
  });

  it('waits while /web/health answers but the login page does not yet (503), and is ready at its first 200', async () => {
    let logins = 0;
    login = () => (++logins < 4 ? 503 : 200);
    await waitForReady(url, { database: 'forja_acme', erpVersion: '17.0' }, 10_000);
    expect(logins).to.equal(4);
    expect(asked).to.include('/web/login?db=forja_acme').and.include('/web/health?db_server_status=1');
  });

  it('is not ready while the ERP cannot reach its database server (17.0+), whatever the login page says', async () => {
    login = () => 200;
    health = () => 500;
    const error = await waitForReady(url, { database: 'forja_acme', erpVersion: '18.0' }, 1_000).then(() => null, (caught: Error) => caught);
    expect(error?.message).to.match(/was not ready within 1 s/).and.contain('last: /web/health?db_server_status=1 answered HTTP 500');
  });

  it('fails after the timeout naming both paths and the login page\'s last answer; a redirect is not ready', async () => {
    login = () => 303;
    const error = await waitForReady(url, { database: 'forja_acme', erpVersion: '16.0' }, 1_000).then(() => null, (caught: Error) => caught);
    expect(error?.message).to.equal(`the ERP at ${url} was not ready within 1 s: it must answer 200 on /web/health and /web/login?db=forja_acme (last: /web/login?db=forja_acme answered HTTP 303)`);
  });

  it('names the connection error when nothing listens', async () => {
    const error = await waitForReady(`http://127.0.0.1:${await freePort()}`, { database: 'forja_acme', erpVersion: '17.0' }, 600).then(() => null, (caught: Error) => caught);
    expect(error?.message).to.contain('(last: /web/health?db_server_status=1: ECONNREFUSED)');
  });

  it('stops waiting when its job is cancelled', async () => {
    login = () => 503;
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error('cancelled')), 300);
    const error = await waitForReady(url, { database: 'forja_acme', erpVersion: '17.0' }, 10_000, abort.signal).then(() => null, (caught: Error) => caught);
    expect(error?.message).to.equal('cancelled');
  });
});
