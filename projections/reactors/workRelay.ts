import type { Bus } from '#shared/bus/bus.ts';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { Reactor } from '../runner/projection.ts';

/** What an executor receives: the event that asked for work, whole. */
export interface WorkMessageBody {
  eventId: string;
  stream: string;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  globalPosition: number;
}

/**
 * Relays events that ask for work (`InstanceRequested` → `work.provision`, …) to the bus's work
 * queue. The event id is the message id, so a batch re-run after a crash is de-duplicated by the
 * bus instead of queueing the work twice.
 */
export function workRelayReactor(bus: Bus, routes: Readonly<Record<string, string>>): Reactor {
  return {
    name: 'work_relay',
    eventTypes: Object.keys(routes),
    async handle(events) {
      for (const event of events) {
        const subject = routes[event.type];
        if (!subject) continue;
        const body: WorkMessageBody = {
          eventId: event.id,
          stream: event.stream,
          type: event.type,
          data: event.data,
          metadata: event.metadata,
          globalPosition: event.globalPosition,
        };
        await bus.publishWork(subject, new TextEncoder().encode(JSON.stringify(body)), { msgId: event.id });
      }
    },
  };
}
