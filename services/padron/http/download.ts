import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Request, Response } from 'express';
import copyStreams from 'pg-copy-streams';
import type { Pool } from '#shared/db.ts';
import type { PadronRegistry } from '../lookup/registry.ts';
import { BadLookupRequest, parseFilters } from '../lookup/requestTerms.ts';
import { ratesTable } from '../storage/loads.ts';
import { etagMatches, sendDetail } from './respond.ts';

const HEADER = 'state,cuit,regime,aliquot,date_from,date_to,last_update\n';

/**
 * `GET /padron/download[/{state}]`: today's loads as one gzip CSV, streamed. Each load's table
 * goes through `COPY … TO STDOUT (FORMAT csv)` into gzip into the response with backpressure all
 * the way, so memory stays at a few buffers whatever the registry's size. No rate limit (spec);
 * the ETag is the version of the loads, so a mirror that already has them gets a 304.
 */
export function downloadHandler(pool: Pool, registry: PadronRegistry) {
  return async (req: Request, res: Response): Promise<void> => {
    let state;
    try {
      state = parseFilters(req.params['state'], undefined, undefined).state;
    } catch (error) {
      if (!(error instanceof BadLookupRequest)) throw error;
      sendDetail(res, 400, error.message);
      return;
    }
    const view = registry.current;
    const slots = view.slots.filter((slot) => state === undefined || slot.state === state);
    const etag = `"download.${state ?? 'all'}.${view.version}"`;
    if (etagMatches(req.headers['if-none-match'], etag)) {
      res.writeHead(304, { etag, 'cache-control': 'no-cache' }).end();
      return;
    }
    const client = await pool.connect().catch(() => undefined);
    if (!client) {
      sendDetail(res, 503, 'the registry database is unavailable; try again shortly');
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/gzip',
      'content-disposition': `attachment; filename="padron-${state ?? 'all'}-${view.date}.csv.gz"`,
      etag,
      'cache-control': 'no-cache',
    });
    let failure: Error | undefined;
    const gzip = createGzip();
    // A client that goes away ends this pipeline, which destroys gzip and so stops the COPY below.
    const sent = pipeline(gzip, res).catch((error: Error) => {
      failure ??= error;
    });
    gzip.write(HEADER);
    try {
      for (const slot of slots) {
        const query = `copy (select '${slot.state}', cuit, regime, aliquot, date_from, date_to, '${slot.lastUpdate}'
          from ${ratesTable(slot.load.loadId)} where regime = '${slot.regime}' order by cuit) to stdout with (format csv)`;
        await pipeline(client.query(copyStreams.to(query)), gzip, { end: false });
      }
      gzip.end();
    } catch (error) {
      failure ??= error as Error;
      gzip.destroy();
    }
    await sent;
    // A connection left mid-COPY cannot serve the next query: discard it rather than return it.
    client.release(failure);
  };
}
