import type pg from 'pg';
import { runTool } from './erpDatabase.ts';

/**
 * What runs before each timed operation, on either side: `sync`, so the page cache's dirty data
 * from the operation before (a dropped 2.4 GB working database and checkpoint, a deleted download)
 * is written out now rather than inside the next timing, then a CHECKPOINT, so none triggered by an
 * earlier operation's WAL (a TEMPLATE copy logs the whole database) lands inside it either.
 */
export async function settle(admin: pg.Client): Promise<void> {
  await runTool('sync', []);
  await admin.query('checkpoint');
}
