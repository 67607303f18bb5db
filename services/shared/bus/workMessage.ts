import type { RecordedEvent } from '../eventStore/eventStore.ts';

/** What an executor receives: the event that asked for work, whole (schemas/messages/WorkMessage.v1.json). */
export interface WorkMessageBody {
  eventId: string;
  stream: string;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  globalPosition: number;
}

/**
 * The work message for an event that asks for work, and its message id: the event id, so
 * publishing it twice (a relay batch re-run, a job re-queued after a restart) is de-duplicated
 * by the bus, or found already done by the executor.
 */
export function workMessageFor(event: RecordedEvent): { data: Uint8Array; msgId: string } {
  const body: WorkMessageBody = {
    eventId: event.id,
    stream: event.stream,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    globalPosition: event.globalPosition,
  };
  return { data: new TextEncoder().encode(JSON.stringify(body)), msgId: event.id };
}
