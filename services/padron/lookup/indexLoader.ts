import copyStreams from 'pg-copy-streams';
import type { Pool } from '#shared/db.ts';
import type { RegimeCode } from '../parse/padronRecord.ts';
import { ratesTable, type PublishedLoad } from '../storage/loads.ts';
import { LoadIndexBuilder, type LoadIndex } from './compactIndex.ts';

/**
 * Reads one load's rates into a LoadIndex through `COPY … TO STDOUT`: rows stream in as text in
 * key order (the primary-key index gives the order), so building never holds more than a chunk
 * besides the arrays, and pg never makes an object per row. Reads the load's own table, not the
 * partitioned parent, so a long read never holds a lock that dropping an old load would wait on.
 */
export async function loadIndex(pool: Pool, load: PublishedLoad): Promise<LoadIndex> {
  const client = await pool.connect();
  try {
    const builder = new LoadIndexBuilder(load.loadId, load.rows);
    const stream = client.query(
      copyStreams.to(`copy (select cuit, regime, aliquot, date_from, date_to from ${ratesTable(load.loadId)} order by cuit, regime) to stdout`),
    );
    let carry = '';
    for await (const chunk of stream) {
      const text = carry + (chunk as Buffer).toString('latin1');
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        addRow(builder, text, start, end);
        start = end + 1;
      }
      carry = text.slice(start);
    }
    if (carry !== '') addRow(builder, carry, 0, carry.length);
    return builder.finish();
  } finally {
    client.release();
  }
}

function addRow(builder: LoadIndexBuilder, text: string, start: number, end: number): void {
  const tab1 = text.indexOf('\t', start);
  const tab2 = text.indexOf('\t', tab1 + 1);
  const tab3 = text.indexOf('\t', tab2 + 1);
  const tab4 = text.indexOf('\t', tab3 + 1);
  const dateFrom = text.slice(tab3 + 1, tab4);
  const dateTo = text.slice(tab4 + 1, end);
  builder.add(
    Number(text.slice(start, tab1)),
    text.slice(tab1 + 1, tab2) as RegimeCode,
    text.slice(tab2 + 1, tab3),
    dateFrom === '\\N' ? null : dateFrom,
    dateTo === '\\N' ? null : dateTo,
  );
}
