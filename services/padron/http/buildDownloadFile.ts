import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import copyStreams from 'pg-copy-streams';
import type { Pool } from '#shared/db.ts';
import type { SlotView } from '../lookup/slotView.ts';
import { ratesTable } from '../storage/loads.ts';

const HEADER = 'state,cuit,regime,aliquot,date_from,date_to,last_update\n';

/** Temporary files are hidden (`.`) and end in `.tmp`, so a listing of downloads never mistakes one for a file to serve. */
export const TEMP_SUFFIX = '.tmp';

/**
 * Writes the loads of `slots` to `path` as one gzip CSV. Each load's table goes through
 * `COPY … TO STDOUT (FORMAT csv)` into gzip into a temporary file beside `path`, with backpressure
 * all the way, so memory stays at a few buffers whatever the registry's size; the rename at the
 * end makes the file appear whole or not at all, for this process and any other sharing the folder.
 */
export async function buildDownloadFile(pool: Pool, slots: readonly SlotView[], path: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`);
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    const gzip = createGzip();
    const written = pipeline(gzip, createWriteStream(temp, { mode: 0o644 }));
    // Handled at once: a full disk rejects this while a COPY below is still being awaited.
    written.catch(() => undefined);
    let copyError: Error | undefined;
    try {
      gzip.write(HEADER);
      for (const slot of slots) {
        const query = `copy (select '${slot.state}', cuit, regime, aliquot, date_from, date_to, '${slot.lastUpdate}'
          from ${ratesTable(slot.load.loadId)} where regime = '${slot.regime}' order by cuit) to stdout with (format csv)`;
        await pipeline(client.query(copyStreams.to(query)), gzip, { end: false });
      }
      gzip.end();
    } catch (error) {
      copyError = error as Error;
      gzip.destroy(copyError);
    }
    // The file's error is the cause when there is one (a full disk stops the COPY, not the other way round).
    failure = (await written.then(() => undefined, (error: Error) => error)) ?? copyError;
    if (failure) throw failure;
    await rename(temp, path);
  } catch (error) {
    failure ??= error as Error;
    await rm(temp, { force: true });
    throw failure;
  } finally {
    // A connection left mid-COPY cannot serve the next query: discard it rather than return it.
    client.release(failure);
  }
}
