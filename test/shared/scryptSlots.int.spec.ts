import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createSlots, PasswordChecksBusy, scryptSlots } from '#shared/secrets/scryptSlots.ts';

const SLOTS_FILE = fileURLToPath(new URL('../../services/shared/secrets/scryptSlots.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the bound on password hashing at once (issue 10, item 6)', () => {
  it('uses half of libuv’s thread pool and one core less than the machine has, at least one', () => {
    const slotsWith = (pool?: string) => {
      const env = { ...process.env };
      if (pool === undefined) delete env['UV_THREADPOOL_SIZE'];
      else env['UV_THREADPOOL_SIZE'] = pool;
      const script = `import { scryptSlots } from ${JSON.stringify(SLOTS_FILE)}; process.stdout.write(String(scryptSlots.size));`;
      return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, encoding: 'utf8' });
    };
    const spareCores = availableParallelism() - 1;
    const expected = [2, 4, 1].map((half) => String(Math.max(1, Math.min(half, spareCores))));
    expect([slotsWith(), slotsWith('8'), slotsWith('1')]).to.deep.equal(expected);
    expect(scryptSlots.running()).to.equal(0);
  });

  it('runs at most `size` tasks at once, the others waiting their turn', async () => {
    const slots = createSlots({ size: 2, maxWaiting: 10, maxWaitMs: 5_000 });
    let peak = 0;
    const task = async () => {
      peak = Math.max(peak, slots.running());
      await sleep(20);
      return 'done';
    };
    expect(await Promise.all(Array.from({ length: 8 }, () => slots.run(task)))).to.deep.equal(Array(8).fill('done'));
    expect(peak).to.equal(2);
    expect(slots.running()).to.equal(0);
  });

  it('refuses at once beyond `maxWaiting`, and after `maxWaitMs` of waiting', async () => {
    const slots = createSlots({ size: 1, maxWaiting: 1, maxWaitMs: 50 });
    const outcomes = await Promise.all(
      [200, 1, 1].map((ms) =>
        slots.run(() => sleep(ms).then(() => 'ran')).then(
          (value) => value,
          (error: unknown) => (error instanceof PasswordChecksBusy ? 'busy' : 'failed'),
        ),
      ),
    );
    // The first runs; the second waits 50 ms and gives up; the third finds the queue full.
    expect(outcomes).to.deep.equal(['ran', 'busy', 'busy']);
    expect(await slots.run(() => Promise.resolve('ran again'))).to.equal('ran again');
  });

  it('frees the slot of a task that fails', async () => {
    const slots = createSlots({ size: 1, maxWaiting: 0, maxWaitMs: 10 });
    await slots.run(() => Promise.reject(new Error('scrypt failed'))).catch(() => undefined);
    expect(slots.running()).to.equal(0);
    expect(await slots.run(() => Promise.resolve('ran'))).to.equal('ran');
  });
});
