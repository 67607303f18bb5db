import type { WorkMessage } from '#shared/bus/bus.ts';

/**
 * A job redelivered to the executor that is still running it (its ack wait ran out while the
 * machine was too busy to send the heartbeat) is left alone: the run in progress settles the
 * message. Two runs of one job would start the same step twice at once.
 */
export function oncePerJob() {
  const running = new Set<string>();
  return async (message: WorkMessage, run: () => Promise<void>): Promise<void> => {
    const key = message.msgId ?? message.json<{ eventId: string }>().eventId;
    if (running.has(key)) return;
    running.add(key);
    try {
      await run();
    } finally {
      running.delete(key);
    }
  };
}
