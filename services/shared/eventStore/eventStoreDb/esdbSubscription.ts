import type { AllStreamResolvedEvent, EventStoreDBClient } from '@eventstore/db-client';
import { excludeSystemEvents } from '@eventstore/db-client';
import type { RecordedEvent, SubscribeOptions } from '../eventStore.ts';
import { isSystem, toReadPosition, toRecorded } from './esdbMapping.ts';

/** Above this many buffered events the subscription is paused, so gRPC flow control holds the rest. */
const HIGH_WATER = 10_000;

/**
 * Yields what the server pushed since the consumer last asked, in batches of at most `batchSize`,
 * until `signal` aborts. A dropped subscription (server restart, error) is thrown, not retried: the
 * caller resumes from its own checkpoint.
 */
export async function* subscribeToAll(
  client: EventStoreDBClient,
  options: SubscribeOptions,
): AsyncGenerator<RecordedEvent[]> {
  const { signal } = options;
  const batchSize = options.batchSize ?? 1000;
  if (signal?.aborted) return;
  const subscription = client.subscribeToAll({ fromPosition: toReadPosition(options.after), filter: excludeSystemEvents() });
  const buffer: RecordedEvent[] = [];
  let last = options.after;
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const onData = (resolved: AllStreamResolvedEvent) => {
    const event = resolved.event;
    try {
      // The server's filter drops `$` types; `$` streams and the start event itself are dropped here.
      if (!event || isSystem(event) || Number(event.position.commit) <= last) return;
      const recorded = toRecorded(event);
      last = recorded.globalPosition;
      buffer.push(recorded);
      if (buffer.length >= HIGH_WATER) subscription.pause();
    } catch (error) {
      failure ??= error;
    }
    notify();
  };
  // Stays attached after the loop: an error emitted while cancelling must not crash the process.
  subscription.on('error', (error: Error) => {
    failure ??= error;
    notify();
  });
  subscription.on('data', onData);
  subscription.on('end', () => {
    ended = true;
    notify();
  });
  signal?.addEventListener('abort', notify);

  try {
    while (!signal?.aborted) {
      if (buffer.length === 0) {
        if (failure !== undefined) throw failure;
        if (ended) throw new Error('EventStoreDB ended the $all subscription');
        await new Promise<void>((resolve) => (wake = resolve));
        // Let the events of the same network read land in one batch.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      const batch = buffer.splice(0, batchSize);
      if (subscription.isPaused() && buffer.length < HIGH_WATER / 2) subscription.resume();
      yield batch;
    }
  } finally {
    signal?.removeEventListener('abort', notify);
    subscription.off('data', onData);
    await subscription.unsubscribe().catch(() => undefined);
  }
}
