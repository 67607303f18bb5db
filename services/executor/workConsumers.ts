import type { Bus, WorkMessage } from '#shared/bus/bus.ts';
import type { Logger } from '#shared/log.ts';
import { oncePerJob } from './jobs/oncePerJob.ts';

/** One kind of work the executor takes: its subject, its own durable consumer and how many at once. */
export interface WorkConsumer {
  subject: string;
  durable: string;
  concurrency: number;
  handle(message: WorkMessage, signal: AbortSignal): Promise<void>;
}

/**
 * Starts one consumer per work subject, each with its own concurrency, so a long migration never
 * takes an instance job's slot. Resolves, once aborted, when every running handler has returned.
 */
export function consumeWork(bus: Bus, consumers: readonly WorkConsumer[], options: { ackWaitMs: number; signal: AbortSignal; logger: Logger }): Promise<void> {
  return Promise.all(
    consumers.map((consumer) => {
      const runOnce = oncePerJob();
      const consuming = bus.consume(
        { durable: consumer.durable, filter: consumer.subject, ackWaitMs: options.ackWaitMs, maxInFlight: consumer.concurrency, signal: options.signal },
        (message) => runOnce(message, () => consumer.handle(message, options.signal)),
      );
      return consuming.catch((error: unknown) => options.logger.error({ err: error, subject: consumer.subject }, 'a work consumer stopped'));
    }),
  ).then(() => undefined);
}
