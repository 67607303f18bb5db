import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Bus, ConsumeOptions, WorkMessage } from '../../services/shared/bus/bus.ts';

const ACK_WAIT_MS = 250;
const NAK_DELAY_MS = 250;
/** Timers fire late, never early, but a server may round: allow a little slack on lower bounds. */
const EARLY_SLACK = 0.8;

const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(predicate: () => boolean, timeoutMs = 3_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

interface Delivery { message: WorkMessage; at: number }

/**
 * The behaviour every bus adapter must show. JetStream tests share the one `WORK` stream, so each
 * test gets its own subject `work.test<random>` (filters never overlap) and its own durable.
 */
export function busContract(name: string, makeBus: () => Promise<Bus>): void {
  describe(`bus contract: ${name}`, function () {
    let bus: Bus;
    let stop: AbortController;
    let loops: Array<Promise<void>>;
    let id: string;
    let subject: string;

    beforeEach(async function () {
      bus = await makeBus();
      stop = new AbortController();
      loops = [];
      id = randomUUID().replaceAll('-', '').slice(0, 12);
      subject = `work.test${id}`;
    });

    afterEach(async function () {
      stop.abort();
      await Promise.all(loops);
      await bus.close();
    });

    /** Starts a consumer on this test's subject; `handler` runs per delivery after it is recorded. */
    function consume(deliveries: Delivery[], handler: (message: WorkMessage) => Promise<void> | void, options: Partial<ConsumeOptions> = {}): void {
      const loop = bus.consume({ durable: `d${id}`, filter: subject, ackWaitMs: ACK_WAIT_MS, signal: stop.signal, ...options }, async (message) => {
        deliveries.push({ message, at: Date.now() });
        await handler(message);
      });
      loops.push(loop);
    }

    it('delivers work once and does not redeliver it after ack', async function () {
      const deliveries: Delivery[] = [];
      consume(deliveries, (m) => m.ack());
      expect(await bus.publishWork(subject, text('{"n":1}'))).to.deep.equal({ duplicate: false });
      await waitUntil(() => deliveries.length === 1, 3_000, 'the delivery');
      const [first] = deliveries;
      expect(first?.message.subject).to.equal(subject);
      expect(first?.message.json()).to.deep.equal({ n: 1 });
      expect(first?.message.deliveryCount).to.equal(1);
      expect(first?.message.msgId).to.equal(undefined);
      await sleep(ACK_WAIT_MS * 2);
      expect(deliveries).to.have.length(1);
    });

    it('shares the work of one durable between two consumers, each message once', async function () {
      const a: Delivery[] = [];
      const b: Delivery[] = [];
      const slowAck = async (m: WorkMessage): Promise<void> => { await sleep(30); m.ack(); };
      consume(a, slowAck);
      consume(b, slowAck);
      for (let n = 0; n < 10; n += 1) await bus.publishWork(subject, text(String(n)));
      await waitUntil(() => a.length + b.length >= 10, 5_000, '10 deliveries');
      await sleep(ACK_WAIT_MS * 2);
      const seen = [...a, ...b].map((d) => new TextDecoder().decode(d.message.data)).sort();
      expect(seen).to.deep.equal(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
      expect(a.length, 'first consumer got some').to.be.greaterThan(0);
      expect(b.length, 'second consumer got some').to.be.greaterThan(0);
    });

    it('redelivers a nak with delay after the delay, not before', async function () {
      const deliveries: Delivery[] = [];
      consume(deliveries, (m) => (m.deliveryCount === 1 ? m.nak(NAK_DELAY_MS) : m.ack()), { ackWaitMs: 5_000 });
      await bus.publishWork(subject, text('x'));
      await waitUntil(() => deliveries.length === 2, 3_000, 'the redelivery');
      const [first, second] = deliveries as [Delivery, Delivery];
      expect(second.message.deliveryCount).to.equal(2);
      expect(second.at - first.at).to.be.at.least(NAK_DELAY_MS * EARLY_SLACK);
    });

    it('redelivers unacknowledged work after the ack wait with deliveryCount 2', async function () {
      const deliveries: Delivery[] = [];
      consume(deliveries, (m) => { if (m.deliveryCount > 1) m.ack(); }, { maxInFlight: 2 });
      await bus.publishWork(subject, text('x'));
      await waitUntil(() => deliveries.length === 2, 3_000, 'the redelivery');
      const [first, second] = deliveries as [Delivery, Delivery];
      expect(second.message.deliveryCount).to.equal(2);
      expect(second.at - first.at).to.be.at.least(ACK_WAIT_MS * EARLY_SLACK);
    });

    it('does not redeliver while the handler keeps calling working()', async function () {
      const deliveries: Delivery[] = [];
      let done = false;
      consume(deliveries, async (m) => {
        for (let i = 0; i < 8; i += 1) {
          await sleep(ACK_WAIT_MS / 3);
          m.working();
        }
        m.ack();
        done = true;
      }, { maxInFlight: 2 }); // a free slot, so a redelivery would be seen while the first runs
      await bus.publishWork(subject, text('x'));
      await waitUntil(() => done, 5_000, 'the handler to finish');
      await sleep(ACK_WAIT_MS * 2);
      expect(deliveries).to.have.length(1);
    });

    it('drops a duplicate msgId and delivers the message once', async function () {
      const deliveries: Delivery[] = [];
      consume(deliveries, (m) => m.ack());
      const msgId = randomUUID();
      expect(await bus.publishWork(subject, text('x'), { msgId })).to.deep.equal({ duplicate: false });
      expect(await bus.publishWork(subject, text('x'), { msgId })).to.deep.equal({ duplicate: true });
      await waitUntil(() => deliveries.length === 1, 3_000, 'the delivery');
      expect(deliveries[0]?.message.msgId).to.equal(msgId);
      await sleep(ACK_WAIT_MS * 2);
      expect(deliveries).to.have.length(1);
    });

    it('never redelivers a termed message', async function () {
      const deliveries: Delivery[] = [];
      consume(deliveries, (m) => m.term());
      await bus.publishWork(subject, text('x'));
      await waitUntil(() => deliveries.length === 1, 3_000, 'the delivery');
      await sleep(ACK_WAIT_MS * 3);
      expect(deliveries).to.have.length(1);
    });

    it('redelivers when the handler throws', async function () {
      const deliveries: Delivery[] = [];
      consume(deliveries, (m) => {
        if (m.deliveryCount === 1) throw new Error('boom');
        m.ack();
      }, { ackWaitMs: 5_000 });
      await bus.publishWork(subject, text('x'));
      await waitUntil(() => deliveries.length === 2, 3_000, 'the redelivery');
      expect(deliveries.map((d) => d.message.deliveryCount)).to.deep.equal([1, 2]);
    });

    it('holds at most maxInFlight messages at once', async function () {
      const deliveries: Delivery[] = [];
      let release = (): void => {};
      const released = new Promise<void>((resolve) => { release = resolve; });
      consume(deliveries, async (m) => { await released; m.ack(); }, { maxInFlight: 2, ackWaitMs: 5_000 });
      for (let n = 0; n < 4; n += 1) await bus.publishWork(subject, text(String(n)));
      await waitUntil(() => deliveries.length === 2, 3_000, 'two deliveries');
      await sleep(200);
      expect(deliveries).to.have.length(2);
      release();
      await waitUntil(() => deliveries.length === 4, 3_000, 'the rest');
    });

    it('stops consuming when the signal aborts', async function () {
      const first = new AbortController();
      const before: Delivery[] = [];
      const after: Delivery[] = [];
      consume(before, (m) => m.ack(), { signal: first.signal });
      await bus.publishWork(subject, text('1'));
      await waitUntil(() => before.length === 1, 3_000, 'the first delivery');
      first.abort();
      await loops.pop();
      await bus.publishWork(subject, text('2'));
      consume(after, (m) => m.ack());
      await waitUntil(() => after.length === 1, 3_000, 'the delivery to the new consumer');
      expect(before).to.have.length(1);
    });

    it('refuses a second durable whose filter overlaps (work-queue stream)', async function () {
      const deliveries: Delivery[] = [];
      consume(deliveries, (m) => m.ack(), { filter: `${subject}.>` });
      await bus.publishWork(`${subject}.a`, text('x'));
      await waitUntil(() => deliveries.length === 1, 3_000, 'the first durable to exist');
      let error: unknown;
      await bus.consume({ durable: `other${id}`, filter: `${subject}.*.x`, signal: stop.signal }, async () => {}).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(Error);
    });

    it('publishes and subscribes on core subjects with * and > wildcards', async function () {
      const got: string[] = [];
      const record = (s: string, data: Uint8Array): void => void got.push(`${s}=${new TextDecoder().decode(data)}`);
      const logs = bus.subscribe('logs.instance.*', record);
      const control = bus.subscribe('control.>', record);
      for (const s of [`logs.instance.${id}`, `logs.instance.${id}.deep`, `logs.other.${id}`, `control.instance.${id}`, 'control']) bus.publish(s, text(id));
      bus.publish(`logs.instance.end${id}`, text(id));
      bus.publish(`control.end.${id}`, text(id));
      await waitUntil(() => got.includes(`logs.instance.end${id}=${id}`) && got.includes(`control.end.${id}=${id}`), 3_000, 'the end markers');
      logs.unsubscribe();
      control.unsubscribe();
      expect(got.filter((g) => g.endsWith(`=${id}`)).sort()).to.deep.equal(
        [`control.end.${id}`, `control.instance.${id}`, `logs.instance.${id}`, `logs.instance.end${id}`].map((s) => `${s}=${id}`).sort(),
      );
    });

    it('stops delivering to a subscription after unsubscribe', async function () {
      const dropped: string[] = [];
      const kept: string[] = [];
      const target = `control.instance.${id}`;
      const sub = bus.subscribe(target, (_s, data) => void dropped.push(new TextDecoder().decode(data)));
      const witness = bus.subscribe(target, (_s, data) => void kept.push(new TextDecoder().decode(data)));
      bus.publish(target, text('1'));
      await waitUntil(() => dropped.length === 1 && kept.length === 1, 3_000, 'the first message');
      sub.unsubscribe();
      bus.publish(target, text('2'));
      await waitUntil(() => kept.length === 2, 3_000, 'the second message');
      witness.unsubscribe();
      expect(dropped).to.deep.equal(['1']);
    });
  });
}
