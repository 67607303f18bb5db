import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient, createKysely, type Pool } from '#shared/db.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { PadronLoadedData } from '../padron.ts';
import type { RegimeCode, StateCode } from '../parse/padronRecord.ts';
import { claimLoad, failAbandonedLoads, findLiveLoads, type LiveLoad } from '../storage/loads.ts';
import { migratePadron } from '../storage/migrations/index.ts';
import { expireOldLoads } from '../storage/retention.ts';
import { argentineDate } from '../time.ts';
import { sha256OfFile } from './fileHash.ts';
import { ImportableEntries } from './importableEntries.ts';
import { loadEntries } from './loadEntries.ts';
import { PadronInputError } from './padronInputError.ts';
import { recordLoad } from './recordLoad.ts';
import { findServingLoad, recordMissingEvents } from './servingLoad.ts';

export interface ImportDeps {
  pool: Pool;
  store: EventStore;
  /** For the import's own connection: it holds the import's lock and its one long transaction. */
  databaseUrl: string;
}

export interface ImportRequest {
  state: StateCode;
  path: string;
  regime?: RegimeCode;
  /** Salta's rate table as data, when configured. */
  saltaRates?: unknown;
  /** `YYYY-MM-DD`, the first day the rates apply, for a file that does not say (see `openParser`). */
  date?: string;
}

export type ImportOutcome =
  | {
      status: 'loaded';
      load: PadronLoadedData;
      /** Entries of the archive left out because they are not the jurisdiction's padrón, with why. */
      skipped: string[];
      expiredLoads: number[];
      abandonedLoads: number[];
      /** Global position of the PadronLoaded event, for read-your-writes. */
      position: number | undefined;
    }
  | { status: 'unchanged'; message: string };

/**
 * Imports one padrón file for one jurisdiction: opens it (refusing a layout, regime or date that
 * contradicts it), answers "unchanged" when a published load of the same file (same sha256)
 * already serves what is asked, else streams its text through the parser into a new load,
 * publishes the load atomically, drops loads past retention and records `PadronLoaded`. Whatever
 * fails, the previous load keeps serving.
 */
export async function importPadronFile(deps: ImportDeps, request: ImportRequest): Promise<ImportOutcome> {
  const startedAt = performance.now();
  const fileName = basename(request.path);
  await assertReadableFile(request.path);
  const sha256 = await sha256OfFile(request.path);
  await migratePadron(createKysely<unknown>(deps.pool));

  const client = createClient(deps.databaseUrl, 'forja-padron-import');
  await client.connect();
  const entries = new ImportableEntries(request.path, request);
  try {
    const abandonedLoads = await failAbandonedLoads(client);
    // Opened first, so a regime or date that contradicts the file is refused even when the file is loaded.
    const first = await entries.next();
    if (!first) throw new PadronInputError(`'${fileName}' holds no padrón text`);
    const live = await findLiveLoads(client, request.state, sha256);
    const running = live.find((load) => load.status === 'loading');
    if (running) throw new PadronInputError(`this file is being imported right now (load ${running.loadId}, started ${running.startedAt.toISOString()}); wait for it to finish`);
    const recordedNow = await recordMissingEvents(deps.store, request.state, live);
    const askedRegime = request.regime ?? null;
    const serving = findServingLoad(live, { askedRegime, assignedDateFrom: first.parser.assignedDateFrom });
    if (serving) {
      await first.batches.return(undefined);
      return { status: 'unchanged', message: unchangedMessage(serving, sha256, recordedNow.includes(serving.loadId)) };
    }
    const loadId = await claimLoad(client, { state: request.state, fileName, sha256, askedRegime });
    if (loadId === null) throw new PadronInputError('this file is being imported right now by another process; wait for it to finish');
    const load = await loadEntries(client, { loadId, state: request.state, fileName, sha256, startedAt }, first, entries);
    const expiredLoads = await expireOldLoads(client, request.state, argentineDate(Date.now()));
    const position = await recordLoad(deps.store, load);
    return { status: 'loaded', load, skipped: entries.skipped, expiredLoads, abandonedLoads, position };
  } finally {
    await entries.close().catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

function unchangedMessage(load: LiveLoad, sha256: string, eventRecordedNow: boolean): string {
  if (eventRecordedNow) return `this file was already published as load ${load.loadId}; its missing PadronLoaded event is now recorded; nothing else changed`;
  const regimes = load.regimes.join(', ');
  return `this file (sha256 ${sha256.slice(0, 12)}…) was already loaded as load ${load.loadId} (${load.fileName}, published ${load.publishedAt?.toISOString() ?? '?'}) and serves regime${load.regimes.length === 1 ? '' : 's'} ${regimes}; nothing changed`;
}

async function assertReadableFile(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new PadronInputError(`file not found: ${path}`);
  if (!info.isFile()) throw new PadronInputError(`not a file: ${path}`);
}
