import { expect } from 'chai';
import { createMemoryBus, subjectMatches } from '../../services/shared/bus/memoryBus.ts';
import { busContract } from './bus.contract.ts';

busContract('memory', async () => createMemoryBus());

describe('memory bus', function () {
  it('matches subjects like NATS', function () {
    expect(subjectMatches('logs.*', 'logs.a')).to.equal(true);
    expect(subjectMatches('logs.*', 'logs.a.b')).to.equal(false);
    expect(subjectMatches('logs.>', 'logs')).to.equal(false);
    expect(subjectMatches('logs.>', 'logs.a.b')).to.equal(true);
    expect(subjectMatches('a.*.c', 'a.b.c')).to.equal(true);
    expect(subjectMatches('a.b', 'a.b.c')).to.equal(false);
  });

  it('leaves no timers running after close', async function () {
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await new Promise((resolve) => setImmediate(resolve)); // mocha arms its own timeout timer after the test starts
    const baseline = timers();
    const bus = createMemoryBus();
    const stop = new AbortController();
    let delivered = 0;
    const loop = bus.consume({ durable: 'timers', filter: 'work.timers', ackWaitMs: 60_000, signal: stop.signal }, async (m) => {
      delivered += 1;
      if (delivered === 2) m.nak(60_000); // one message waits on its ack wait, one on its nak delay
    });
    await bus.publishWork('work.timers', new Uint8Array([1]));
    await bus.publishWork('work.timers', new Uint8Array([2]));
    while (delivered < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(timers()).to.be.greaterThan(baseline);
    await bus.close();
    await loop;
    expect(timers()).to.equal(baseline);
  });
});
