import {
  ANY,
  NO_STREAM,
  START,
  type CurrentRevision,
  type Position,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import type { EventMetadata, ExpectedVersion, RecordedEvent } from '../eventStore.ts';

/*
 * Global positions. Since EventStoreDB 20 a gRPC append writes one self-committed prepare record per
 * event (flag IsCommitted, no separate commit record), also when the events come in one batch. $all
 * reports such an event at (commit, prepare) = (its own log position, its own log position): see
 * AllReader.ReadAllEventsForward, ResolvedEvent.CalculatePosition and IndexCommitter (EventCommitted)
 * in the server. So within a batch each event has its own commit position, and commit positions rise
 * strictly in $all order: `globalPosition` is the commit position. Events that share a commit position
 * came from explicit TCP transactions (commit ≠ prepare), which gRPC cannot write; we refuse them
 * rather than give two events one position.
 *
 * Back to a read position: a number n is where an event's record begins in the log, so
 * {commit: n, prepare: n} is exactly that event's $all position, a record boundary the server can
 * reposition its reader to (an arbitrary byte offset would not be). Forward reads and subscriptions
 * from it may include that event itself, so everything at or before n is dropped here.
 */

/** A global position as the `after` of a read: 0 (or less) is the start of $all. */
export function toReadPosition(after: number): ReadPosition {
  return after <= 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };
}

export function toGlobalPosition(position: Position | undefined): number {
  // Stream reads report no position on servers before 22.6 (or the all-ones "none" value).
  if (!position || position.commit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error('EventStoreDB reported no log position for an event (server older than 22.6?)');
  }
  if (position.commit !== position.prepare) {
    const at = `${position.commit}/${position.prepare}`;
    throw new Error(`event at ${at} was not self-committed, so one number cannot order it`);
  }
  return Number(position.commit);
}

/** System events (`$`-typed: links, metadata, stats) and system streams are not part of the domain feed. */
export function isSystem(event: EsdbRecordedEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

export function toRecorded(event: EsdbRecordedEvent): RecordedEvent {
  return {
    id: event.id,
    stream: event.streamId,
    type: event.type,
    data: event.data,
    metadata: (event.metadata ?? {}) as EventMetadata,
    version: Number(event.revision) + 1,
    globalPosition: toGlobalPosition(event.position),
    recordedAt: event.created,
  };
}

/** A stream's version from a revision the server reports: revision + 1, 0 for no stream. */
export function toVersion(revision: CurrentRevision): number {
  return revision === NO_STREAM ? 0 : Math.max(0, Number(revision) + 1);
}

export function toExpectedRevision(expected: ExpectedVersion) {
  if (expected === 'any') return ANY;
  if (!Number.isSafeInteger(expected) || expected < 0) throw new RangeError(`bad expected version ${expected}`);
  return expected === 0 ? NO_STREAM : BigInt(expected - 1);
}
