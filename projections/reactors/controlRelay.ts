import type { Bus } from '#shared/bus/bus.ts';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import type { Reactor } from '../runner/projection.ts';

/** The control subject an event concerns (`control.instance.<slug>`), by event type. */
export type ControlRoutes = Readonly<Record<string, (event: RecordedEvent) => string>>;

/**
 * Tells the executor running a job that it was cancelled or paused: a notice on the job's
 * `control.<kind>.<id>` subject, sent once the event is appended. The notice is fire-and-forget
 * and carries no decision (the stream has it): a lost one costs the executor the time until its
 * next re-read of the stream, and a repeated one (a batch re-run after a crash) costs a re-read.
 */
export function controlRelayReactor(bus: Bus, routes: ControlRoutes): Reactor {
  return {
    name: 'control_relay',
    eventTypes: Object.keys(routes),
    async handle(events) {
      for (const event of events) {
        const subject = routes[event.type]?.(event);
        if (!subject) continue;
        bus.publish(subject, new TextEncoder().encode(JSON.stringify({ type: event.type, eventId: event.id, jobId: (event.data as { jobId?: string }).jobId })));
      }
    },
  };
}
