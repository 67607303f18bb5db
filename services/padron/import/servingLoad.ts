import { aggregateStream } from '#shared/decider/aggregateStream.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import { padronStream } from '../padron.ts';
import { isRecorded, padronDecider } from '../padron.decider.ts';
import { validPadronLoaded } from '../padronSchemas.ts';
import type { RegimeCode, StateCode } from '../parse/padronRecord.ts';
import type { LiveLoad } from '../storage/loads.ts';
import { recordLoad } from './recordLoad.ts';

/** What an import asks of a file: a regime (null: all it has) and, for Salta, the date it gives the rows. */
export interface FileRequest {
  askedRegime: RegimeCode | null;
  /** As `OpenedParser.assignedDateFrom`: undefined when the rows carry their own dates. */
  assignedDateFrom: string | null | undefined;
}

/**
 * The published load of the same file that already serves what is asked, if any: this is what
 * makes a re-import "unchanged". A load taken for every regime serves any one of them; a load of
 * one regime serves only that one; a Salta load serves only the date it gave its rows. A load that
 * retention dropped is no longer live, so the file is imported again.
 */
export function findServingLoad(live: readonly LiveLoad[], request: FileRequest): LiveLoad | undefined {
  const { askedRegime, assignedDateFrom } = request;
  return live.find(
    (load) =>
      load.status === 'published' &&
      (load.askedRegime === null || load.askedRegime === askedRegime) &&
      (askedRegime === null || load.regimes.includes(askedRegime)) &&
      (assignedDateFrom === undefined || load.validFrom === assignedDateFrom),
  );
}

/**
 * Records the PadronLoaded events missing for published loads (a run that died between its
 * publish and its append) and returns the ids recorded now. The decider refuses a load recorded
 * twice, so two runs doing this at once record each load once.
 */
export async function recordMissingEvents(store: EventStore, state: StateCode, live: readonly LiveLoad[]): Promise<number[]> {
  const published = live.filter((load) => load.status === 'published');
  if (published.length === 0) return [];
  const history = await aggregateStream(store, padronDecider, padronStream(state));
  const recorded: number[] = [];
  for (const load of published) {
    if (isRecorded(history.state, load.loadId) || !validPadronLoaded(load.report)) continue;
    await recordLoad(store, load.report);
    recorded.push(load.loadId);
  }
  return recorded;
}
