import { readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import pg from 'pg';
import type { PadronService } from '#services/padron/http/server.ts';
import { padronApiValidator } from '#services/padron/padronSchemas.ts';
import { waitUntil } from '#test/support/wait.ts';
import { downloadFolder, startTestService } from './support/padronDatabase.ts';
import { agipLines, writeLines } from './support/padronFiles.ts';
import { createLookupFixture, type LookupFixture } from './support/lookupFixture.ts';

describe('padrón service: limits, download, docs, health, metrics', function () {
  this.timeout(60_000);
  let fixture: LookupFixture;
  let service: PadronService;
  let downloads: string;

  before(async () => {
    fixture = await createLookupFixture('padron_edges');
    downloads = downloadFolder();
    service = await startTestService(fixture.db.pool, { downloadDir: downloads });
  });

  /** Runs `during` while the test database refuses connections (and has none open). */
  async function withDatabaseDown(during: () => Promise<void>): Promise<void> {
    const admin = new pg.Client({ connectionString: fixture.db.url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    const database = new URL(fixture.db.url).pathname.slice(1);
    try {
      await admin.query(`alter database ${database} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
      await during();
    } finally {
      await admin.query(`alter database ${database} allow_connections true`);
      await admin.end();
    }
  }
  after(async () => {
    await service.close();
    await fixture.db.close();
  });

  describe('per-IP rate limit', () => {
    let limited: PadronService;
    before(async () => {
      limited = await startTestService(fixture.db.pool, { limit: 3, windowSeconds: 3600 });
    });
    after(() => limited.close());

    it('answers 429 with Retry-After and RateLimit-* once single and batch lookups pass the limit', async () => {
      const first = await fetch(`${limited.url}/padron/cuit/20000000011`);
      expect(first.headers.get('ratelimit-limit')).to.equal('3');
      expect(first.headers.get('ratelimit-remaining')).to.equal('2');
      expect(first.headers.get('ratelimit-policy')).to.equal('3;w=3600');
      await fetch(`${limited.url}/padron/cuits`, { method: 'POST', body: '{"cuits":[]}' });
      expect((await fetch(`${limited.url}/padron/cuit/20000000011`)).status).to.equal(200);
      for (const response of [await fetch(`${limited.url}/padron/cuit/20000000011`), await fetch(`${limited.url}/padron/cuits`, { method: 'POST', body: '{"cuits":[]}' })]) {
        expect(response.status).to.equal(429);
        const retryAfter = Number(response.headers.get('retry-after'));
        expect(retryAfter).to.be.within(1, 3600);
        expect(response.headers.get('ratelimit-remaining')).to.equal('0');
        expect(response.headers.get('ratelimit-reset')).to.equal(String(retryAfter));
        expect(await response.json()).to.deep.equal({ detail: 'too many requests from this address; retry after the number of seconds in Retry-After' });
      }
    });

    it('does not limit the download', async () => {
      for (let i = 0; i < 5; i++) expect((await fetch(`${limited.url}/padron/download/X`)).status).to.equal(200);
    });

    it('ignores X-Forwarded-For unless proxies are trusted', async () => {
      const response = await fetch(`${limited.url}/padron/cuit/20000000011`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(response.status, 'still the socket address, already over its limit').to.equal(429);
    });

    it('with trusted proxies, limits each forwarded client on its own', async () => {
      const behindProxy = await startTestService(fixture.db.pool, { limit: 1, windowSeconds: 3600, trustedHops: 1 });
      try {
        const from = (ip: string) => fetch(`${behindProxy.url}/padron/cuit/20000000011`, { headers: { 'x-forwarded-for': `198.51.100.1, ${ip}` } });
        expect((await from('203.0.113.1')).status).to.equal(200);
        expect((await from('203.0.113.1')).status).to.equal(429);
        expect((await from('203.0.113.2')).status).to.equal(200);
      } finally {
        await behindProxy.close();
      }
    });
  });

  describe('download', () => {
    it('sends today’s loads as a gzip CSV with a header row and a strong ETag, and answers 304 to it', async () => {
      const response = await fetch(`${service.url}/padron/download`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('application/gzip');
      expect(response.headers.get('cache-control')).to.equal('no-cache');
      expect(response.headers.get('accept-ranges')).to.equal('bytes');
      expect(response.headers.get('etag')).to.match(/^"all-[0-9a-f]{32}"$/);
      expect(response.headers.get('content-disposition')).to.match(/^attachment; filename="padron-all-\d{4}-\d{2}-\d{2}\.csv\.gz"$/);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(Number(response.headers.get('content-length'))).to.equal(bytes.length);
      const lines = gunzipSync(bytes).toString('utf8').trimEnd().split('\n');
      const [a = '', b = ''] = fixture.cuits;
      const { from, to } = fixture.period;
      expect(lines).to.deep.equal([
        'state,cuit,regime,aliquot,date_from,date_to,last_update',
        `B,${a},P,6.00,${from},${to},${fixture.lastUpdate['B']}`,
        `B,${b},P,2.75,${from},${to},${fixture.lastUpdate['B']}`,
        `B,${a},R,1.5,${from},${to},${fixture.lastUpdate['B']}`,
        `C,${a},P,3.00,${from},${to},${fixture.lastUpdate['C']}`,
        `C,${a},R,2.00,${from},${to},${fixture.lastUpdate['C']}`,
        `X,${a},P,0.5,${from},${to},${fixture.lastUpdate['X']}`,
      ]);
      const etag = response.headers.get('etag') ?? '';
      const again = await fetch(`${service.url}/padron/download`, { headers: { 'if-none-match': etag } });
      expect(again.status).to.equal(304);
    });

    it('downloads one jurisdiction, and refuses an unknown one', async () => {
      const response = await fetch(`${service.url}/padron/download/B`);
      const lines = gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8').trimEnd().split('\n');
      expect(lines.map((line) => line.slice(0, 2))).to.deep.equal(['st', 'B,', 'B,', 'B,']);
      expect(response.headers.get('content-disposition')).to.match(/filename="padron-B-/);
      const unknown = await fetch(`${service.url}/padron/download/Q`);
      expect(unknown.status).to.equal(400);
      expect(await unknown.json()).to.deep.equal({ detail: 'unknown state "Q"; one of A, B, C, E, S, T, X' });
    });

    it('answers a Range request with those bytes only, and If-Range with a stale ETag with the whole file', async () => {
      const whole = await fetch(`${service.url}/padron/download/C`);
      const bytes = Buffer.from(await whole.arrayBuffer());
      const etag = whole.headers.get('etag') ?? '';
      const part = await fetch(`${service.url}/padron/download/C`, { headers: { range: 'bytes=10-29', 'if-range': etag } });
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal(`bytes 10-29/${bytes.length}`);
      expect(part.headers.get('etag')).to.equal(etag);
      expect(Buffer.from(await part.arrayBuffer())).to.deep.equal(bytes.subarray(10, 30));
      const rest = await fetch(`${service.url}/padron/download/C`, { headers: { range: `bytes=${bytes.length - 5}-` } });
      expect(Buffer.from(await rest.arrayBuffer())).to.deep.equal(bytes.subarray(bytes.length - 5));
      const stale = await fetch(`${service.url}/padron/download/C`, { headers: { range: 'bytes=10-29', 'if-range': '"C-0123"' } });
      expect(stale.status, 'a resumed download of another version starts over').to.equal(200);
      expect(Buffer.from(await stale.arrayBuffer())).to.deep.equal(bytes);
      const beyond = await fetch(`${service.url}/padron/download/C`, { headers: { range: `bytes=${bytes.length}-` } });
      expect(beyond.status).to.equal(416);
      expect(beyond.headers.get('content-range')).to.equal(`bytes */${bytes.length}`);
      expect(beyond.headers.get('etag')).to.equal(null);
      expect(await beyond.json()).to.deep.equal({ detail: 'the range is outside the file; Content-Range gives its size' });
      const unmet = await fetch(`${service.url}/padron/download/C`, { headers: { 'if-match': '"C-0123"' } });
      expect(unmet.status).to.equal(412);
      expect(await unmet.json()).to.deep.equal({ detail: 'the file does not meet the If-Match or If-Unmodified-Since condition' });
      expect((await fetch(`${service.url}/padron/download/C`, { headers: { 'if-match': etag } })).status).to.equal(200);
    });

    it('builds each file once: serves one already built while the database is down', async () => {
      const before = Buffer.from(await (await fetch(`${service.url}/padron/download/B`)).arrayBuffer());
      await withDatabaseDown(async () => {
        const during = await fetch(`${service.url}/padron/download/B`);
        expect(during.status).to.equal(200);
        expect(Buffer.from(await during.arrayBuffer())).to.deep.equal(before);
      });
    });

    it('answers 503 with Retry-After when a file cannot be built, leaves no partial file, and builds it once it can', async () => {
      const folder = downloadFolder();
      const fresh = await startTestService(fixture.db.pool, { downloadDir: folder });
      try {
        await withDatabaseDown(async () => {
          const response = await fetch(`${fresh.url}/padron/download/X`);
          expect(response.status).to.equal(503);
          expect(response.headers.get('retry-after')).to.equal('10');
          expect(await response.json()).to.deep.equal({ detail: 'the registry database is unavailable; try again shortly' });
          expect(readdirSync(folder)).to.deep.equal([]);
        });
        const after = await fetch(`${fresh.url}/padron/download/X`);
        expect(after.status).to.equal(200);
        expect(gunzipSync(Buffer.from(await after.arrayBuffer())).toString('utf8')).to.match(/^state,cuit,regime,aliquot,date_from,date_to,last_update\nX,/);
        expect(readdirSync(folder)).to.have.length(1);
      } finally {
        await fresh.close();
      }
    });

    it('removes temporary files a dead build left at start, but not one another service may be writing', async () => {
      const folder = downloadFolder();
      const abandoned = join(folder, '.all-x.csv.gz.123.ab.tmp');
      const recent = join(folder, '.all-y.csv.gz.456.cd.tmp');
      writeFileSync(abandoned, 'partial');
      writeFileSync(recent, 'partial');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      utimesSync(abandoned, twoHoursAgo, twoHoursAgo);
      const started = await startTestService(fixture.db.pool, { downloadDir: folder });
      await started.close();
      expect(readdirSync(folder)).to.deep.equal(['.all-y.csv.gz.456.cd.tmp']);
    });

    it('answers 503 with Retry-After when its file was removed under it, then builds it again', async () => {
      const first = await fetch(`${service.url}/padron/download/X`);
      const bytes = Buffer.from(await first.arrayBuffer());
      // What another service sharing FORJA_DATA_DIR does when it saw a newer version first.
      for (const name of readdirSync(downloads)) if (name.startsWith('X-')) rmSync(join(downloads, name));
      const vanished = await fetch(`${service.url}/padron/download/X`);
      expect(vanished.status).to.equal(503);
      expect(vanished.headers.get('retry-after')).to.equal('1');
      expect(await vanished.json()).to.deep.equal({ detail: 'the download is being rebuilt; try again shortly' });
      const again = await fetch(`${service.url}/padron/download/X`);
      expect(again.status).to.equal(200);
      expect(again.headers.get('etag')).to.equal(first.headers.get('etag'));
      expect(Buffer.from(await again.arrayBuffer())).to.deep.equal(bytes);
    });
  });

  describe('docs and errors', () => {
    it('describes itself in /openapi.json, built from schemas/padron', async () => {
      const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
      expect(document.openapi).to.equal('3.1.0');
      expect(Object.keys(document.paths)).to.include.members(['/padron/cuit/{cuit}', '/padron/cuits', '/padron/download', '/padron/download/{state}', '/health', '/metrics']);
      expect(Object.keys(document.components.schemas)).to.include.members(['RateResult', 'CuitLookup', 'CuitsBatchRequest', 'CuitsBatchResponse', 'Error']);
      expect(JSON.stringify(document)).to.not.match(/\.v1\.json/);
    });

    it('serves the interactive docs offline from swagger-ui-dist', async () => {
      const redirect = await fetch(`${service.url}/docs`, { redirect: 'manual' });
      expect(redirect.status).to.equal(301);
      expect(redirect.headers.get('location')).to.equal('/docs/');
      const page = await (await fetch(`${service.url}/docs/`)).text();
      expect(page).to.include('swagger-ui-bundle.js');
      expect(page).to.not.match(/https?:\/\/(?!www\.w3\.org)/);
      expect(await (await fetch(`${service.url}/docs/swagger-initializer.js`)).text()).to.include("url: '../openapi.json'");
      expect((await fetch(`${service.url}/docs/swagger-ui-bundle.js`)).status).to.equal(200);
    });

    it('answers unknown paths with a JSON 404', async () => {
      const response = await fetch(`${service.url}/padron/unknown`);
      expect(response.status).to.equal(404);
      expect(await response.json()).to.deep.equal({ detail: 'no such resource: GET /padron/unknown' });
    });
  });

  describe('health and metrics', () => {
    it('reports rows per jurisdiction, and those with a check digit that does not verify, when healthy', async () => {
      const response = await fetch(`${service.url}/health`);
      expect(response.status).to.equal(200);
      const body: unknown = await response.json();
      expect(padronApiValidator('Health')(body)).to.equal(true);
      expect(body).to.deep.equal({ status: 'ok', rows: { B: 3, C: 2, X: 1 }, check_digit_warnings: { B: 0, C: 0, X: 0 } });
    });

    it('exposes requests, latency, the cache hit ratio and rows per jurisdiction', async () => {
      await fetch(`${service.url}/padron/cuit/20000000011`);
      const text = await (await fetch(`${service.url}/metrics`)).text();
      expect(text).to.match(/^padron_http_requests_total\{route="cuit",status="200"\} \d+$/m);
      expect(text).to.match(/^padron_http_request_duration_seconds_bucket\{le="0\.001",route="cuit"\} \d+$/m);
      expect(text).to.match(/^padron_lookups_total\{source="memory"\} \d+$/m);
      expect(text).to.match(/^padron_lookup_cache_hit_ratio [\d.]+$/m);
      expect(text).to.match(/^padron_rates\{state="B"\} 3$/m);
      expect(text).to.match(/^padron_last_publish_timestamp_seconds\{state="C"\} \d+/m);
    });

    it('reports 503 when the database is down, while 304s still need no rate', async () => {
      const [a = ''] = fixture.cuits;
      const path = `/padron/cuit/${a}?date=${fixture.lastMonth.from}`;
      const etag = (await fetch(`${service.url}${path}`)).headers.get('etag') ?? '';
      const admin = new pg.Client({ connectionString: fixture.db.url.replace(/\/[^/]+$/, '/postgres') });
      await admin.connect();
      const database = new URL(fixture.db.url).pathname.slice(1);
      try {
        await admin.query(`alter database ${database} allow_connections false`);
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
        const health = await fetch(`${service.url}/health`);
        expect(health.status).to.equal(503);
        expect(((await health.json()) as { detail: string }).detail).to.match(/^database unreachable: /);
        expect((await fetch(`${service.url}${path}`, { headers: { 'if-none-match': etag } })).status, 'decided without the database').to.equal(304);
        expect((await fetch(`${service.url}${path}`)).status, 'this day’s rates are in the database').to.equal(503);
        expect((await fetch(`${service.url}/padron/cuit/${a}`)).status, 'today’s are in memory').to.equal(200);
      } finally {
        await admin.query(`alter database ${database} allow_connections true`);
        await admin.end();
      }
      expect((await fetch(`${service.url}/health`)).status).to.equal(200);
    });
  });

  describe('publishes', () => {
    it('picks up a publish by polling, and never shows a half-swapped registry', async () => {
      const polling = await startTestService(fixture.db.pool, { pollMs: 50 });
      try {
        const [a = ''] = fixture.cuits;
        const seen = new Set<string>();
        let done = false;
        const watcher = (async () => {
          while (!done) {
            const body = (await (await fetch(`${polling.url}/padron/cuit/${a}?state=C`)).json()) as { results: Array<{ aliquot: number }> };
            seen.add(body.results.map((result) => result.aliquot).join('/'));
          }
        })();
        const before = [...seen];
        await fixture.db.load({ state: 'C', path: writeLines(fixture.folder, 'ARDJU-next.TXT', agipLines(fixture.period, [{ cuit: a, perception: '7,00', withholding: '8,00' }])) });
        await waitUntil(() => seen.has('7/8'), 'the polling service to serve the new load');
        done = true;
        await watcher;
        expect(before.every((value) => value !== '7/8')).to.equal(true);
        expect([...seen].filter((value) => value !== '7/8' && !/^3(\.5)?\/2$/.test(value)), 'only whole old or whole new answers').to.deep.equal([]);
      } finally {
        await polling.close();
      }
    });

    it('builds a new download file after a publish and removes the old version; other states keep theirs and their ETag', async () => {
      const folder = downloadFolder();
      const polling = await startTestService(fixture.db.pool, { pollMs: 50, downloadDir: folder });
      try {
        const etagOf = async (path: string) => {
          const response = await fetch(`${polling.url}/padron/download${path}`);
          await response.arrayBuffer();
          return response.headers.get('etag');
        };
        const before = { all: await etagOf(''), B: await etagOf('/B'), C: await etagOf('/C') };
        const filesBefore = readdirSync(folder).sort();
        expect(filesBefore.map((name) => name.split('-')[0])).to.deep.equal(['B', 'C', 'all']);
        const [a = ''] = fixture.cuits;
        await fixture.db.load({ state: 'C', path: writeLines(fixture.folder, 'ARDJU-after.TXT', agipLines(fixture.period, [{ cuit: a, perception: '9,00', withholding: '9,50' }])) });
        await waitUntil(async () => (await etagOf('/C')) !== before.C, 'the polling service to serve the new load');
        expect(await etagOf('')).to.not.equal(before.all);
        expect(await etagOf('/B'), 'B’s loads did not change').to.equal(before.B);
        const filesAfter = readdirSync(folder).sort();
        expect(filesAfter.map((name) => name.split('-')[0])).to.deep.equal(['B', 'C', 'all']);
        expect(filesAfter.filter((name) => filesBefore.includes(name))).to.deep.equal(filesBefore.filter((name) => name.startsWith('B-')));
        const lines = gunzipSync(Buffer.from(await (await fetch(`${polling.url}/padron/download/C`)).arrayBuffer())).toString('utf8');
        expect(lines).to.include(`C,${a},P,9.00,`);
      } finally {
        await polling.close();
      }
    });
  });
});
