import type { EventMetadata, RecordedEvent } from '../eventStore/eventStore.ts';
import type { Aggregate } from './aggregateStream.ts';

/**
 * Metadata of an event the platform decides by itself (the idle sweep, a dead ERP, a job's
 * steps): its cause is the event it follows from, and it keeps that event's correlation, so an
 * audit can walk from any system event back to the request that started it. `via` names the part
 * of the platform that decided.
 */
export function systemMetadata({ via, causedBy }: { via: string; causedBy: Pick<RecordedEvent, 'id' | 'metadata'> }): EventMetadata {
  return { correlationId: causedBy.metadata.correlationId, causationId: causedBy.id, actor: 'system', at: new Date().toISOString(), via };
}

/**
 * For `handleCommand`: the metadata of a system decision on a stream, caused by the last event of
 * the state it was decided on (the sweep's sleep follows from the instance being idle since then).
 */
export function causedByLast(via: string): (decidedOn: Aggregate<unknown>) => EventMetadata {
  return ({ lastEvent }) => {
    if (!lastEvent) throw new Error(`${via} decided on an empty stream`);
    return systemMetadata({ via, causedBy: lastEvent });
  };
}
