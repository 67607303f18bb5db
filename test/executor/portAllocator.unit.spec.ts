import { expect } from 'chai';
import { parsePortRange, portAllocator } from '#services/executor/ports/portAllocator.ts';

describe('ERP port allocator', () => {
  const range = { from: 20000, to: 20004 };

  it('hands out a port no other instance keeps, that is free now, and never the same one twice', async () => {
    const busy = new Set([20001]);
    const ports = portAllocator({ range, reserved: async () => new Set([20000]), isFree: async (port) => !busy.has(port), random: () => 0 });
    expect(await ports.allocate()).to.equal(20002);
    expect(await ports.allocate()).to.equal(20003);
    expect(await ports.allocate()).to.equal(20004);
  });

  it('starts at a random place in the range, so two executors rarely collide', async () => {
    const ports = portAllocator({ range, reserved: async () => new Set(), isFree: async () => true, random: () => 0.99 });
    expect(await ports.allocate()).to.equal(20004);
    expect(await ports.allocate()).to.equal(20000);
  });

  it('says so when the range is used up', async () => {
    const ports = portAllocator({ range, reserved: async () => new Set([20000, 20001, 20002, 20003, 20004]), isFree: async () => true });
    const error = await ports.allocate().then(() => null, (rejection: unknown) => rejection);
    expect(String(error)).to.equal('Error: no free port left for an ERP in 20000-20004 (FORJA_ERP_PORTS)');
  });

  it('reads a range and refuses one outside 1024-65535 or upside down', () => {
    expect(parsePortRange('20000-29999')).to.deep.equal({ from: 20000, to: 29999 });
    expect(() => parsePortRange('80-90')).to.throw(/between 1024 and 65535/);
    expect(() => parsePortRange('30000-20000')).to.throw(/between 1024 and 65535/);
  });
});
