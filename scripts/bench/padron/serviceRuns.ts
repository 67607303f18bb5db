import type { Request } from 'autocannon';
import { startConstantServer, startLookupService } from './children.ts';
import { assertStatuses, measureHttp, warmUp, type HttpFigure } from './httpLoad.ts';
import type { PadronBenchOptions } from './options.ts';
import { progress } from './progress.ts';
import { measureInRounds, type RoundFigure } from './rounds.ts';
import { etagsOf, type CuitSamples } from './samples.ts';

export interface ServiceFigures {
  constant: RoundFigure;
  hits: RoundFigure;
  misses: RoundFigure;
  notModified: RoundFigure;
  batchSerial: HttpFigure;
  batchConcurrent: HttpFigure;
}

const BATCH = 500;
const get = (path: string, headers?: Record<string, string>): Request => ({ method: 'GET', path, ...(headers ? { headers } : {}) });

/**
 * The lookup service's figures next to the constant-JSON anchor, which gets the same requests as
 * the hits and answers the same bytes as a hit, from its own process: hits, misses and 304s
 * interleaved with the anchor in rounds, then the batch runs (absolute targets, no anchor).
 */
export async function measureService(serviceUrl: string, serviceCpu: () => number, samples: CuitSamples, options: PadronBenchOptions): Promise<ServiceFigures> {
  const hitRequests = samples.hits.map((cuit) => get(`/padron/cuit/${cuit}`));
  const hit = await fetch(`${serviceUrl}/padron/cuit/${samples.hits[0] ?? ''}`);
  const hitHeaders = { etag: hit.headers.get('etag') ?? '', 'cache-control': hit.headers.get('cache-control') ?? '' };
  const anchor = await startConstantServer(await hit.text(), hitHeaders);
  const tags = await etagsOf(serviceUrl, samples.hits);
  let interleaved: RoundFigure[];
  try {
    await warmUp(anchor.url, hitRequests);
    await warmUp(serviceUrl, hitRequests);
    interleaved = await measureInRounds(
      [
        { label: 'anchor: constant JSON, plain node:http (a hit’s bytes)', url: anchor.url, requests: hitRequests, expect: '2xx', cpuSeconds: anchor.cpuSeconds },
        { label: 'GET /padron/cuit/{cuit}, hits', url: serviceUrl, requests: hitRequests, expect: '2xx', cpuSeconds: serviceCpu },
        { label: 'GET /padron/cuit/{cuit}, misses', url: serviceUrl, requests: samples.misses.map((cuit) => get(`/padron/cuit/${cuit}`)), expect: '2xx', cpuSeconds: serviceCpu },
        { label: 'GET /padron/cuit/{cuit}, 304 revalidations', url: serviceUrl, requests: samples.hits.map((cuit) => get(`/padron/cuit/${cuit}`, { 'if-none-match': tags.get(cuit) ?? '' })), expect: '3xx', cpuSeconds: serviceCpu },
      ],
      options,
    );
  } finally {
    await anchor.stop();
  }
  const [constant, hits, misses, notModified] = interleaved;
  if (!constant || !hits || !misses || !notModified) throw new Error('a lookup run returned no figure');
  const batch: Request = { method: 'POST', path: '/padron/cuits', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cuits: samples.hits.slice(0, BATCH) }) };
  const run = (connections: number) => ({ url: serviceUrl, requests: [batch], connections, seconds: options.seconds });
  const batchSerial = await measureHttp('POST /padron/cuits, 500 CUITs, concurrency 1', run(1));
  assertStatuses(batchSerial, '2xx');
  const batchConcurrent = await measureHttp('POST /padron/cuits, 500 CUITs, concurrency 8', run(8));
  assertStatuses(batchConcurrent, '2xx');
  return { constant, hits, misses, notModified, batchSerial, batchConcurrent };
}

/** Starts `npm run padron -- serve` on the benchmark database, measures it, stops it. */
export async function serveAndMeasure(databaseUrl: string, samples: CuitSamples, options: PadronBenchOptions): Promise<ServiceFigures & { service: { readySeconds: number; rssMb: number; rates: number } }> {
  progress('starting the lookup service');
  const starting = performance.now();
  const service = await startLookupService(databaseUrl);
  const readySeconds = (performance.now() - starting) / 1000;
  try {
    const health = (await (await fetch(`${service.url}/health`)).json()) as { rows: Record<string, number> };
    const rates = Object.values(health.rows).reduce((sum, count) => sum + count, 0);
    const figures = await measureService(service.url, () => service.cpuSeconds(), samples, options);
    return { ...figures, service: { readySeconds, rssMb: service.rssMb(), rates } };
  } finally {
    await service.stop();
  }
}
