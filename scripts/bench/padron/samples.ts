import type { Pool } from '#shared/db.ts';
import { cuitCheckDigit } from '#services/padron/parse/cuit.ts';

/** CUITs for the lookup runs: ones with rates (hits) and valid ones with none (misses). */
export interface CuitSamples {
  hits: string[];
  misses: string[];
}

/** `count` hits spread over every published load, and as many misses (right check digit, in no load). */
export async function sampleCuits(pool: Pool, count: number): Promise<CuitSamples> {
  const { rows } = await pool.query<{ cuit: string }>(
    `select cuit::text from (select distinct cuit from padron.rates tablesample bernoulli (1)) sample order by random() limit $1`,
    [count],
  );
  const hits = rows.map((row) => row.cuit);
  const candidates: string[] = [];
  for (let ten = 2399900000; candidates.length < count * 2; ten += 7) {
    const digit = cuitCheckDigit(String(ten));
    if (digit !== null) candidates.push(`${ten}${digit}`);
  }
  const present = await pool.query<{ cuit: string }>('select cuit::text from padron.rates where cuit = any($1::bigint[])', [candidates]);
  const taken = new Set(present.rows.map((row) => row.cuit));
  return { hits, misses: candidates.filter((cuit) => !taken.has(cuit)).slice(0, count) };
}

/** The ETag of each hit's lookup, read once from the service, for the 304 run. */
export async function etagsOf(url: string, cuits: readonly string[]): Promise<Map<string, string>> {
  const tags = new Map<string, string>();
  for (const cuit of cuits) {
    const response = await fetch(`${url}/padron/cuit/${cuit}`);
    await response.arrayBuffer();
    tags.set(cuit, response.headers.get('etag') ?? '');
  }
  return tags;
}
