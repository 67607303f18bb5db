import type { Logger } from '../log.ts';
import type { Bus, ConsumeOptions, PublishWorkResult, Subscription, WorkMessage } from './bus.ts';

/**
 * In-process bus for the single-process default. It mirrors the JetStream semantics the NATS
 * adapter gets from the server (work-queue stream, durable consumers with non-overlapping
 * filters, msgId de-duplication, ack wait, nak delay, working, term) so that code tested here
 * behaves the same in production. Nothing survives the process: it is not durable.
 */
export interface MemoryBusOptions {
  /** How long a msgId is remembered for de-duplication (default 2 min, as the NATS stream). */
  duplicateWindowMs?: number;
  /** Where failing handlers and subscribers are reported. */
  logger?: Logger;
}

interface Stored { seq: number; subject: string; data: Uint8Array; msgId: string | undefined }
interface Entry { msg: Stored; deliveries: number; state: 'ready' | 'pending' | 'delayed'; timer?: NodeJS.Timeout | undefined }
interface Puller { maxInFlight: number; running: number; deliver(entry: Entry): void }
interface Durable { filter: string; ackWaitMs: number; entries: Map<number, Entry>; ready: number[]; pullers: Puller[] }

const DEFAULT_ACK_WAIT_MS = 30_000;

/** Creates the in-process bus. `close()` clears every timer and ends every `consume`. */
export function createMemoryBus(options: MemoryBusOptions = {}): Bus {
  const { logger, duplicateWindowMs = 120_000 } = options;
  const seenIds = new Map<string, number>(); // msgId → published at (ms)
  const unclaimed: Stored[] = []; // work published before any durable's filter matched it
  const durables = new Map<string, Durable>();
  const subscriptions = new Set<{ pattern: string; handler: (subject: string, data: Uint8Array) => void }>();
  const stopAll = new AbortController();
  let nextSeq = 1;

  function dispatch(durable: Durable): void {
    while (!stopAll.signal.aborted) {
      const puller = durable.pullers.filter((p) => p.running < p.maxInFlight).sort((a, b) => a.running - b.running)[0];
      const seq = puller === undefined ? undefined : durable.ready.shift();
      const entry = seq === undefined ? undefined : durable.entries.get(seq);
      if (puller === undefined || seq === undefined) return;
      if (entry === undefined || entry.state !== 'ready') continue; // settled while queued
      entry.deliveries += 1;
      entry.state = 'pending';
      entry.timer = setTimeout(() => requeue(durable, entry), durable.ackWaitMs);
      puller.deliver(entry);
    }
  }

  /** Puts a pending message back in line, now or after `delayMs`. */
  function requeue(durable: Durable, entry: Entry, delayMs = 0): void {
    clearTimeout(entry.timer);
    if (stopAll.signal.aborted) return;
    const enqueue = (): void => {
      entry.timer = undefined;
      entry.state = 'ready';
      durable.ready.push(entry.msg.seq);
      dispatch(durable);
    };
    entry.state = 'delayed';
    if (delayMs > 0) entry.timer = setTimeout(enqueue, delayMs);
    else enqueue();
  }

  function settle(durable: Durable, entry: Entry): void {
    clearTimeout(entry.timer);
    durable.entries.delete(entry.msg.seq); // work-queue retention: gone once acked or termed
  }

  function toWorkMessage(durable: Durable, entry: Entry): WorkMessage & { settled: boolean } {
    const deliveryCount = entry.deliveries;
    // A late call from a delivery whose ack wait ran out must not touch the redelivery; like
    // JetStream, its ack still counts while the message waits for redelivery.
    const current = (): boolean => !message.settled && durable.entries.get(entry.msg.seq) === entry && entry.deliveries === deliveryCount;
    const pending = (): boolean => current() && entry.state === 'pending';
    const finish = (): void => { if (current()) settle(durable, entry); message.settled = true; };
    const message = {
      settled: false,
      subject: entry.msg.subject,
      data: entry.msg.data,
      msgId: entry.msg.msgId,
      deliveryCount,
      json: <T>() => JSON.parse(new TextDecoder().decode(entry.msg.data)) as T,
      ack: finish,
      term: finish,
      nak: (delayMs?: number) => { if (pending()) requeue(durable, entry, delayMs); message.settled = true; },
      working: () => { if (pending()) entry.timer?.refresh(); },
    };
    return message;
  }

  function claim(durable: Durable): void {
    for (let i = 0; i < unclaimed.length; ) {
      const msg = unclaimed[i];
      if (msg !== undefined && subjectMatches(durable.filter, msg.subject)) {
        unclaimed.splice(i, 1);
        durable.entries.set(msg.seq, { msg, deliveries: 0, state: 'ready' });
        durable.ready.push(msg.seq);
      } else i += 1;
    }
  }

  function openDurable(name: string, filter: string, ackWaitMs: number): Durable {
    for (const [other, d] of durables) {
      // The same rule JetStream enforces on a work-queue stream: one owner per message.
      if (other !== name && subjectsOverlap(d.filter, filter)) {
        throw new Error(`consumer ${name}: filter ${filter} overlaps ${other} (${d.filter}) on a work-queue stream`);
      }
    }
    const durable = durables.get(name) ?? { filter, ackWaitMs, entries: new Map(), ready: [], pullers: [] };
    durable.filter = filter;
    durable.ackWaitMs = ackWaitMs;
    durables.set(name, durable);
    claim(durable);
    return durable;
  }

  return {
    async publishWork(subject, data, publishOptions = {}): Promise<PublishWorkResult> {
      if (stopAll.signal.aborted) throw new Error('bus closed');
      if (!subject.startsWith('work.')) throw new Error(`work subject must start with "work.": ${subject}`);
      const now = Date.now();
      for (const [id, at] of seenIds) { // oldest first: stop at the first id still in the window
        if (now - at < duplicateWindowMs) break;
        seenIds.delete(id);
      }
      const { msgId } = publishOptions;
      if (msgId !== undefined) {
        if (seenIds.has(msgId)) return { duplicate: true };
        seenIds.set(msgId, now);
      }
      const msg: Stored = { seq: nextSeq++, subject, data, msgId };
      const owner = [...durables.values()].find((d) => subjectMatches(d.filter, subject));
      if (owner === undefined) unclaimed.push(msg);
      else {
        owner.entries.set(msg.seq, { msg, deliveries: 0, state: 'ready' });
        owner.ready.push(msg.seq);
        dispatch(owner);
      }
      return { duplicate: false };
    },

    async consume(consumeOptions: ConsumeOptions, handler): Promise<void> {
      const durable = openDurable(consumeOptions.durable, consumeOptions.filter, consumeOptions.ackWaitMs ?? DEFAULT_ACK_WAIT_MS);
      const signal = AbortSignal.any([stopAll.signal, ...(consumeOptions.signal ? [consumeOptions.signal] : [])]);
      if (signal.aborted) return;
      let idle = (): void => {};
      const drained = new Promise<void>((resolve) => { idle = resolve; });
      const puller: Puller = {
        maxInFlight: Math.max(1, consumeOptions.maxInFlight ?? 1),
        running: 0,
        deliver(entry) {
          puller.running += 1;
          const message = toWorkMessage(durable, entry);
          // Handlers always run on a later tick, never inside publishWork's call stack.
          void Promise.resolve()
            .then(() => handler(message))
            .catch((error: unknown) => {
              logger?.warn({ err: error, subject: message.subject, deliveryCount: message.deliveryCount }, 'bus: handler failed');
              if (!message.settled) message.nak();
            })
            .finally(() => {
              puller.running -= 1;
              if (signal.aborted && puller.running === 0) idle();
              dispatch(durable);
            });
        },
      };
      durable.pullers.push(puller);
      dispatch(durable);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      durable.pullers = durable.pullers.filter((p) => p !== puller);
      if (puller.running > 0) await drained;
    },

    publish(subject, data) {
      for (const sub of subscriptions) {
        if (!subjectMatches(sub.pattern, subject)) continue;
        queueMicrotask(() => {
          try {
            if (subscriptions.has(sub)) sub.handler(subject, data);
          } catch (error) {
            logger?.warn({ err: error, subject }, 'bus: subscriber threw'); // as NATS: never the publisher's problem
          }
        });
      }
    },

    subscribe(pattern, handler): Subscription {
      const sub = { pattern, handler };
      subscriptions.add(sub);
      return { unsubscribe: () => void subscriptions.delete(sub) };
    },

    async close() {
      stopAll.abort();
      subscriptions.clear();
      for (const durable of durables.values()) for (const entry of durable.entries.values()) clearTimeout(entry.timer);
      durables.clear();
    },
  };
}

/** NATS subject matching: `*` matches one token, a trailing `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i += 1) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/** Whether some subject matches both filters. */
function subjectsOverlap(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    if (x[i] === '>' || y[i] === '>') return true;
    if (x[i] !== y[i] && x[i] !== '*' && y[i] !== '*') return false;
  }
  return x.length === y.length;
}
