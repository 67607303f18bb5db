import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { instanceGraphs } from '#web/monitoring/instanceGraphs.ts';
import { freePort } from '#test/support/freePort.ts';

const NOW = Date.UTC(2026, 10, 27, 12, 0) / 1000;

const AUTHORIZATION = `Basic ${Buffer.from('forja:secret').toString('base64')}`;

/**
 * A stand-in for Prometheus' query_range: memory has three points, the rest nothing; `refuse`
 * answers an error. Like Prometheus started with a web configuration (exporter-toolkit's
 * web/handler.go), it answers 401 to a request without the Basic login.
 */
function startQueryApi(requests: URLSearchParams[], refuse = false): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.headers.authorization !== AUTHORIZATION) return void res.writeHead(401, { 'www-authenticate': 'Basic', 'content-type': 'text/plain' }).end('Unauthorized\n');
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.searchParams);
    if (refuse) return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'error', error: 'parse error' }));
    const memory = url.searchParams.get('query')!.startsWith('forja_erp_memory_bytes');
    const values = memory ? [[NOW - 120, '1048576'], [NOW - 60, '2097152'], [NOW, 'NaN']] : [];
    const result = memory ? [{ metric: { instance_slug: 'acme-main' }, values }] : [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const endpoint = (server: Server, authorization = AUTHORIZATION) => ({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/monitoring`, authorization });

describe('the instance graphs from Prometheus\' query API', () => {
  it('asks for each graph over the period, draws what has data and says which have none', async () => {
    const requests: URLSearchParams[] = [];
    const server = await startQueryApi(requests);
    try {
      const page = await instanceGraphs(endpoint(server), 'acme-main', '1h', NOW);
      if (page.state !== 'ok') throw new Error(`state ${page.state}`);
      expect(page.graphs.map((graph) => [graph.heading, graph.hasData])).to.deep.equal([['Up or down', false], ['Response time', false], ['Memory', true], ['Database size', false]]);
      const memory = page.graphs[2]!;
      // NaN is dropped: the latest value is the last finite one.
      expect(memory.summary).to.equal('Latest (11:59 UTC): 2 MiB resident (server and workers).');
      expect(memory.svg).to.include('<title>Memory of acme-main over the last 1h</title>');
      expect(memory.explore).to.equal('/monitoring/graph?g0.expr=forja_erp_memory_bytes%7Binstance_slug%3D%22acme-main%22%7D&g0.tab=0&g0.range_input=1h');
      expect(page.graphs[0]!.summary).to.equal('No data in this period.');
      expect(requests.map((params) => [params.get('start'), params.get('end'), params.get('step')])).to.deep.equal(Array(4).fill([String(NOW - 3600), String(NOW), '15']));
      expect(requests[3]!.get('query')).to.equal('pg_database_size_bytes * on (datname) group_left (instance_slug) forja_erp_database_info{instance_slug="acme-main"}');
    } finally {
      server.close();
    }
  });

  it('says monitoring is off without a Prometheus, and unavailable when it does not answer or refuses', async () => {
    expect(await instanceGraphs(undefined, 'acme-main', '6h', NOW)).to.deep.equal({ state: 'off' });
    const down = await instanceGraphs({ url: `http://127.0.0.1:${await freePort()}/monitoring`, authorization: AUTHORIZATION }, 'acme-main', '6h', NOW);
    expect(down.state).to.equal('unavailable');
    const server = await startQueryApi([], true);
    try {
      const refused = await instanceGraphs(endpoint(server), 'acme-main', '6h', NOW);
      expect(refused).to.deep.equal({ state: 'unavailable', reason: 'Prometheus refused the query: parse error' });
      // Prometheus' 401 is text, not JSON: the reason names the login.
      const refusedLogin = await instanceGraphs(endpoint(server, 'Basic Zm9yamE6Z3Vlc3NlZA=='), 'acme-main', '6h', NOW);
      expect(refusedLogin).to.deep.equal({ state: 'unavailable', reason: 'Prometheus refused the query: web\'s monitoring login was refused (401)' });
    } finally {
      server.close();
    }
  });
});
