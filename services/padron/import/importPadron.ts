import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient, createKysely, type Pool } from '#shared/db.ts';
import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { padronStream, type PadronLoadedData } from '../padron.ts';
import { assertNotLoaded, PadronAlreadyLoadedError, padronDecider } from '../padron.decider.ts';
import { validPadronLoaded } from '../padronSchemas.ts';
import type { RegimeCode, StateCode } from '../parse/padronRecord.ts';
import { claimLoad, failAbandonedLoads, findLiveLoad } from '../storage/loads.ts';
import { migratePadron } from '../storage/migrations/index.ts';
import { expireOldLoads } from '../storage/retention.ts';
import { argentineDate } from '../time.ts';
import { sha256OfFile } from './fileHash.ts';
import { ImportableEntries } from './importableEntries.ts';
import { loadEntries } from './loadEntries.ts';
import { PadronInputError } from './padronInputError.ts';
import { recordLoad } from './recordLoad.ts';

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
 * Imports one padrón file for one jurisdiction: refuses a file already loaded (same sha256),
 * streams its text through the parser into a new load, publishes the load atomically, drops loads
 * past retention and records `PadronLoaded`. Whatever fails, the previous load keeps serving.
 */
export async function importPadronFile(deps: ImportDeps, request: ImportRequest): Promise<ImportOutcome> {
  const startedAt = performance.now();
  const fileName = basename(request.path);
  await assertReadableFile(request.path);
  const sha256 = await sha256OfFile(request.path);
  await migratePadron(createKysely<unknown>(deps.pool));
  const loadedBefore = await alreadyRecorded(deps.store, request.state, sha256);
  if (loadedBefore) return { status: 'unchanged', message: loadedBefore };

  const client = createClient(deps.databaseUrl, 'forja-padron-import');
  await client.connect();
  const entries = new ImportableEntries(request.path, request);
  try {
    const abandonedLoads = await failAbandonedLoads(client);
    const live = await findLiveLoad(client, request.state, sha256);
    if (live?.status === 'published' && validPadronLoaded(live.report)) {
      // Published by a run that died before recording its event: record it now, load nothing.
      await recordLoad(deps.store, live.report);
      return { status: 'unchanged', message: `this file was already published as load ${live.loadId}; its missing PadronLoaded event is now recorded; nothing else changed` };
    }
    if (live) throw new PadronInputError(`this file is being imported right now (load ${live.loadId}, started ${live.startedAt.toISOString()}); wait for it to finish`);
    const first = await entries.next();
    if (!first) throw new PadronInputError(`'${fileName}' holds no padrón text`);
    const loadId = await claimLoad(client, { state: request.state, fileName, sha256 });
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

async function assertReadableFile(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new PadronInputError(`file not found: ${path}`);
  if (!info.isFile()) throw new PadronInputError(`not a file: ${path}`);
}

/** The decider's refusal when the jurisdiction's stream already recorded this file, else undefined. */
async function alreadyRecorded(store: EventStore, state: StateCode, sha256: string): Promise<string | undefined> {
  const history = await aggregateStream(store, padronDecider, padronStream(state));
  try {
    assertNotLoaded(history.state, sha256);
    return undefined;
  } catch (error) {
    if (error instanceof PadronAlreadyLoadedError) return error.message;
    throw error;
  }
}
