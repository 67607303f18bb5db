import type { Bus } from '#shared/bus/bus.ts';
import { workMessageFor } from '#shared/bus/workMessage.ts';
import type { Reactor } from '../runner/projection.ts';

export type { WorkMessageBody } from '#shared/bus/workMessage.ts';

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
        const { data, msgId } = workMessageFor(event);
        await bus.publishWork(subject, data, { msgId });
      }
    },
  };
}
