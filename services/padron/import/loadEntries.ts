import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { describeErrors } from '#shared/schemaValidator.ts';
import type { PadronLoadedData } from '../padron.ts';
import { validPadronLoaded } from '../padronSchemas.ts';
import { PadronFormatError } from '../parse/padronFormatError.ts';
import type { StateCode } from '../parse/padronRecord.ts';
import { markFailed } from '../storage/loads.ts';
import { stageAndPublish } from '../storage/stageAndPublish.ts';
import type { CopyRowWriter } from './copyRows.ts';
import { feedRecords } from './feedRecords.ts';
import type { ImportableEntries, ImportableEntry } from './importableEntries.ts';
import { RejectTally } from './rejectTally.ts';

export interface LoadTarget {
  loadId: number;
  state: StateCode;
  fileName: string;
  sha256: string;
  /** performance.now() when the import started: the event's duration counts from there. */
  startedAt: number;
}

const DUPLICATE = 'duplicate CUIT and regime (the first line is kept)';

/**
 * Streams every importable entry into the claimed load and publishes it (see stageAndPublish),
 * then returns the load report. A load with no current rate at all is refused before the commit:
 * publishing it would blank the jurisdiction. On any failure the load is marked failed.
 */
export async function loadEntries(client: pg.ClientBase, target: LoadTarget, first: ImportableEntry, entries: ImportableEntries): Promise<PadronLoadedData> {
  const rejects = new RejectTally();
  const warnings = new RejectTally();
  const layouts = new Set<string>();
  let removed = 0;
  let load: PadronLoadedData | undefined;
  const feed = async (writer: CopyRowWriter) => {
    for (let entry: ImportableEntry | undefined = first; entry; entry = await entries.next()) {
      layouts.add(entry.parser.layout);
      const prefix = entry === first && entries.imported.length === 1 ? '' : `${entry.name}: `;
      removed += (await feedRecords(entry.batches, entry.parser, writer, { rejects, warnings }, prefix)).removed;
    }
  };
  try {
    await stageAndPublish(client, target.loadId, first.parser.layout, feed, (stage, publishedAt) => {
      rejects.addAll(DUPLICATE, stage.duplicateLines);
      if (stage.rowsLoaded === 0) {
        throw new PadronFormatError(`'${target.fileName}' has no current rate to publish (rejected: ${rejects.count}, removed: ${removed}); the previous load keeps serving`);
      }
      load = {
        loadId: target.loadId,
        state: target.state,
        regimes: stage.regimes,
        fileName: target.fileName,
        entries: [...entries.imported],
        sha256: target.sha256,
        layout: [...layouts].join('+'),
        validFrom: stage.validFrom,
        validTo: stage.validTo,
        publishedAt: publishedAt.toISOString(),
        rowsLoaded: stage.rowsLoaded,
        rowsRemoved: removed,
        rowsRejected: rejects.count,
        rejects: rejects.summary(),
        rowsWarned: warnings.count,
        warnings: warnings.summary(),
        durationMs: Math.round(performance.now() - target.startedAt),
      };
      if (!validPadronLoaded(load)) throw new Error(`load report does not match PadronLoaded.v1: ${describeErrors(validPadronLoaded)}`);
      return load;
    });
  } catch (error) {
    await markFailed(client, target.loadId, (error as Error).message).catch(() => undefined);
    throw error;
  }
  if (!load) throw new Error('the load was published without a report');
  return load;
}
