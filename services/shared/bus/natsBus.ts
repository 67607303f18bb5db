import { AckPolicy, DeliverPolicy, NatsError, RetentionPolicy, StorageType, connect, nanos } from 'nats';
import type { ConsumerMessages, JetStreamManager, JsMsg } from 'nats';
import type { Logger } from '../log.ts';
import type { Bus, ConsumeOptions, PublishWorkResult, Subscription, WorkMessage } from './bus.ts';
import { natsAddress, natsConnection } from './natsUrl.ts';

export interface NatsBusOptions {
  /** `nats://host:port`, with the server's token (`nats://TOKEN@host:port`) or user and password when it asks for them. */
  url: string;
  logger?: Logger;
  /** The work-queue stream; it captures `work.>`. */
  streamName?: string;
  /** How long JetStream remembers a `Nats-Msg-Id` (default 2 min). */
  duplicateWindowMs?: number;
}

const DEFAULT_ACK_WAIT_MS = 30_000;
/** Pull requests are short so that slots freed while one is open are soon asked for again. */
const FETCH_EXPIRES_MS = 5_000;
const STREAM_NOT_FOUND = 10059;

/**
 * The bus on NATS JetStream. Connecting ensures the `WORK` stream (work-queue retention, file
 * storage, de-duplication window). Each `consume` call pulls from a durable consumer with explicit
 * acks. A work-queue stream gives each message to exactly one consumer, so JetStream refuses a
 * second durable whose filter overlaps an existing one (`work.>` next to `work.provision`): give
 * each durable its own subjects, and share a durable (same name, same filter) to share the work.
 */
export async function createNatsBus(options: NatsBusOptions): Promise<Bus> {
  const { url, logger } = options;
  const streamName = options.streamName ?? 'WORK';
  const nc = await connect({ ...natsConnection(url), name: 'forja', maxReconnectAttempts: -1 }).catch((error: unknown) => {
    throw new Error(`cannot connect to NATS at ${natsAddress(url)}: ${(error as Error).message}`, { cause: error });
  });
  const jsm = await nc.jetstreamManager();
  try {
    await ensureStream(jsm, streamName, options.duplicateWindowMs ?? 120_000);
  } catch (error) {
    await nc.close();
    throw error;
  }
  const js = nc.jetstream();
  const closing = new AbortController();
  const loops = new Set<Promise<void>>();
  let closed: Promise<void> | undefined;

  async function consumeLoop(consumeOptions: ConsumeOptions, handler: (message: WorkMessage) => Promise<void>): Promise<void> {
    await ensureConsumer(jsm, streamName, consumeOptions);
    const consumer = await js.consumers.get(streamName, consumeOptions.durable);
    const signal = AbortSignal.any([closing.signal, ...(consumeOptions.signal ? [consumeOptions.signal] : [])]);
    const maxInFlight = Math.max(1, consumeOptions.maxInFlight ?? 1);
    const running = new Set<Promise<void>>();
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    let batch: ConsumerMessages | undefined;
    const stopBatch = (): void => batch?.stop();
    signal.addEventListener('abort', stopBatch, { once: true });
    try {
      while (!signal.aborted) {
        if (running.size >= maxInFlight) {
          await Promise.race([...running, aborted]);
          continue;
        }
        try {
          // Ask only for free slots: a message sitting in a client buffer would run out its ack
          // wait there while another worker idles.
          batch = await consumer.fetch({ max_messages: maxInFlight - running.size, expires: FETCH_EXPIRES_MS });
          if (signal.aborted) batch.stop();
          for await (const msg of batch) {
            if (signal.aborted) {
              msg.nak(); // received while stopping: hand it straight back
              continue;
            }
            const run = handle(msg, handler).finally(() => running.delete(run));
            running.add(run);
          }
        } catch (error) {
          if (signal.aborted) break;
          logger?.warn({ err: error, durable: consumeOptions.durable }, 'bus: pull failed, retrying');
          await Promise.race([aborted, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
        }
      }
    } finally {
      signal.removeEventListener('abort', stopBatch);
      await Promise.allSettled(running);
    }
  }

  async function handle(msg: JsMsg, handler: (message: WorkMessage) => Promise<void>): Promise<void> {
    const message = toWorkMessage(msg);
    try {
      await handler(message);
    } catch (error) {
      logger?.warn({ err: error, subject: msg.subject, deliveryCount: message.deliveryCount }, 'bus: handler failed');
      if (!message.settled) message.nak();
    }
  }

  return {
    async publishWork(subject, data, publishOptions = {}): Promise<PublishWorkResult> {
      if (!subject.startsWith('work.')) throw new Error(`work subject must start with "work.": ${subject}`);
      const ack = await js.publish(subject, data, publishOptions.msgId === undefined ? undefined : { msgID: publishOptions.msgId });
      return { duplicate: ack.duplicate };
    },

    consume(consumeOptions, handler) {
      const loop = consumeLoop(consumeOptions, handler);
      const tracked = loop.catch(() => undefined).finally(() => loops.delete(tracked));
      loops.add(tracked);
      return loop;
    },

    publish(subject, data) {
      nc.publish(subject, data);
    },

    subscribe(subject, handler): Subscription {
      const sub = nc.subscribe(subject, {
        callback: (error, msg) => {
          if (error !== null) return logger?.warn({ err: error, subject }, 'bus: subscription failed');
          try {
            handler(msg.subject, msg.data);
          } catch (handlerError) {
            logger?.warn({ err: handlerError, subject: msg.subject }, 'bus: subscriber threw');
          }
        },
      });
      return { unsubscribe: () => sub.unsubscribe() };
    },

    close() {
      closed ??= (async () => {
        closing.abort();
        await Promise.allSettled(loops); // in-flight handlers still need the connection to ack
        if (!nc.isClosed()) await nc.drain();
      })();
      return closed;
    },
  };
}

function toWorkMessage(msg: JsMsg): WorkMessage & { settled: boolean } {
  const settle = (fn: () => void): void => {
    if (message.settled) return;
    message.settled = true;
    fn();
  };
  const message = {
    settled: false,
    subject: msg.subject,
    data: msg.data,
    msgId: msg.headers?.get('Nats-Msg-Id') || undefined,
    // JetStream's "redelivery count" is the delivery count: 1 on the first delivery.
    deliveryCount: msg.info.redeliveryCount,
    json: <T>() => msg.json<T>(),
    ack: () => settle(() => msg.ack()),
    nak: (delayMs?: number) => settle(() => msg.nak(delayMs)),
    working: () => { if (!message.settled) msg.working(); },
    term: () => settle(() => msg.term()),
  };
  return message;
}

async function ensureStream(jsm: JetStreamManager, name: string, duplicateWindowMs: number): Promise<void> {
  const wanted = { subjects: ['work.>'], duplicate_window: nanos(duplicateWindowMs) };
  const info = await jsm.streams.info(name).catch((error: unknown) => {
    if (error instanceof NatsError && error.api_error?.err_code === STREAM_NOT_FOUND) return undefined;
    throw error;
  });
  if (info === undefined) {
    await jsm.streams.add({ name, ...wanted, retention: RetentionPolicy.Workqueue, storage: StorageType.File });
    return;
  }
  // Retention cannot be changed in place; a stream someone made by hand must be fixed by hand.
  if (info.config.retention !== RetentionPolicy.Workqueue) {
    throw new Error(`NATS stream ${name} has retention "${info.config.retention}"; the bus needs "workqueue": delete or fix the stream`);
  }
  const same = info.config.duplicate_window === wanted.duplicate_window && info.config.subjects.join() === wanted.subjects.join();
  if (!same) await jsm.streams.update(name, { ...info.config, ...wanted });
}

async function ensureConsumer(jsm: JetStreamManager, stream: string, options: ConsumeOptions): Promise<void> {
  const ackWait = nanos(options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS);
  try {
    // Creating an existing durable with a changed ack wait updates it; the same config is a no-op.
    await jsm.consumers.add(stream, {
      durable_name: options.durable,
      filter_subject: options.filter,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ackWait,
    });
  } catch (error) {
    throw new Error(`cannot create consumer ${options.durable} (${options.filter}) on stream ${stream}: ${(error as Error).message}`, { cause: error });
  }
}
