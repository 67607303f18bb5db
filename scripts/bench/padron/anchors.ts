import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import copyStreams from 'pg-copy-streams';
import type { Pool } from '#shared/db.ts';
import { COPY_COLUMNS, COPY_FORMAT } from '#services/padron/import/copyRows.ts';
import { progress } from './progress.ts';


/**
 * The database's loading ceiling for one load: its rows exported once in the importer's COPY format
 * (binary, the same bytes the import sends), then timed COPYing into a fresh unindexed table with
 * the same columns, in one transaction as the importer does.
 * Neither parsing nor the key build is in it: it is what PostgreSQL alone takes to ingest the rows.
 */
export async function rawCopySeconds(pool: Pool, loadId: number, scratchFile: string): Promise<number> {
  const client = await pool.connect();
  try {
    await pipeline(client.query(copyStreams.to(`copy padron.rates_${loadId} (${COPY_COLUMNS}) to stdout with (${COPY_FORMAT})`)), createWriteStream(scratchFile));
    await client.query('checkpoint');
    await client.query('begin');
    await client.query(`create table bench_raw_copy (cuit bigint not null, regime char(1) not null, aliquot numeric not null,
      date_from date, date_to date, kind text, grp text, line integer not null)`);
    const started = performance.now();
    await pipeline(createReadStream(scratchFile, { highWaterMark: 1 << 20 }), client.query(copyStreams.from(`copy bench_raw_copy (${COPY_COLUMNS}) from stdin with (${COPY_FORMAT})`)));
    const seconds = (performance.now() - started) / 1000;
    await client.query('rollback');
    return seconds;
  } finally {
    client.release();
    rmSync(scratchFile, { force: true });
  }
}

/**
 * The database's lookup ceiling: primary-key lookups of random CUITs through pg with a named
 * prepared statement, Pool of 8, 64 in flight, for `seconds`, on the table of one load.
 */
export async function pkLookupRate(pool: Pool, loadId: number, cuits: readonly string[], seconds: number): Promise<number> {
  progress(`raw primary-key lookups on padron.rates_${loadId}, ${seconds} s`);
  const statement = { name: `bench.pk_lookup_${loadId}`, text: `select regime, aliquot from padron.rates_${loadId} where cuit = $1` };
  await Promise.all(Array.from({ length: 8 }, () => pool.query({ ...statement, values: [cuits[0]] })));
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const loop = async (offset: number) => {
    for (let i = offset; performance.now() < deadline; i += 64) {
      await pool.query({ ...statement, values: [cuits[i % cuits.length]] });
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 64 }, (_, offset) => loop(offset)));
  return done / ((performance.now() - started) / 1000);
}
