/**
 * The bus port: a durable work queue (JetStream stream `WORK` in production) and plain
 * fire-and-forget subjects for live logs and control signals. Both adapters pass the one
 * contract suite in `test/shared/bus.contract.ts`.
 */

/** A unit of work pulled from the queue. Exactly one of ack/nak/term ends it. */
export interface WorkMessage {
  subject: string;
  data: Uint8Array;
  /** The de-duplication id it was published with (an event id). */
  msgId: string | undefined;
  /** 1 on first delivery, then 2, 3, … on each redelivery. */
  deliveryCount: number;
  json<T = unknown>(): T;
  /** Done: never redeliver. */
  ack(): void;
  /** Failed for now: redeliver after `delayMs` (immediately when absent). */
  nak(delayMs?: number): void;
  /** Still busy: restart the ack-wait clock so the message is not redelivered meanwhile. */
  working(): void;
  /** Give up: never redeliver. */
  term(): void;
}

export interface PublishWorkOptions {
  /** Publishing again with the same id within the de-duplication window is a no-op. */
  msgId?: string;
}

export interface PublishWorkResult {
  duplicate: boolean;
}

export interface ConsumeOptions {
  /**
   * Durable consumer name: consumers with the same name share the work, each message goes to one
   * of them. Two different durables may not have overlapping filters (a work-queue stream gives
   * each message to one consumer): `consume` rejects such a second durable.
   */
  durable: string;
  /** Subject filter, e.g. `work.provision` or `work.>`. */
  filter: string;
  /** How long a delivered message may stay unacknowledged before it is redelivered (default 30 s). */
  ackWaitMs?: number;
  /** Most messages this `consume` call handles at once (default 1); no more are pulled meanwhile. */
  maxInFlight?: number;
  signal?: AbortSignal;
}

export interface Subscription {
  unsubscribe(): void;
}

export interface Bus {
  /** Adds work to the `WORK` queue. Subjects start with `work.`. */
  publishWork(subject: string, data: Uint8Array, options?: PublishWorkOptions): Promise<PublishWorkResult>;
  /**
   * Delivers work to `handler` until the signal aborts (or the bus closes), then resolves once the
   * running handlers have returned. A handler that throws gets its message nak'ed for immediate
   * redelivery unless it already settled it; one that returns without settling leaves it to the
   * ack wait.
   */
  consume(options: ConsumeOptions, handler: (message: WorkMessage) => Promise<void>): Promise<void>;
  /** Fire-and-forget publish on a core subject (`logs.<kind>.<id>`, `control.<kind>.<id>`). */
  publish(subject: string, data: Uint8Array): void;
  /** Core subscription; `*` and `>` wildcards as in NATS. */
  subscribe(subject: string, handler: (subject: string, data: Uint8Array) => void): Subscription;
  close(): Promise<void>;
}
