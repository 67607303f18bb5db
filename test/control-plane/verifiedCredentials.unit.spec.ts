import { expect } from 'chai';
import { verifiedCredentials } from '#services/control-plane/http/verifiedCredentials.ts';

describe('control-plane: remembered Basic checks (issue 10, item 17)', () => {
  const entry = { userId: 'u1', fingerprint: 'f1' };

  it('remembers a check for its time to live, then forgets it', () => {
    const clock = { ms: 0 };
    const cache = verifiedCredentials({ max: 10, ttlMs: 60_000, now: () => clock.ms });
    const key = cache.keyOf('ana@example.com', 'a password');
    cache.remember(key, entry);
    clock.ms = 59_999;
    expect(cache.get(key)).to.include(entry);
    clock.ms = 60_000;
    expect(cache.get(key)).to.equal(undefined);
    expect(cache.size()).to.equal(0);
  });

  it('never holds more than its bound, dropping the least recently used', () => {
    const cache = verifiedCredentials({ max: 100, ttlMs: 60_000 });
    const first = cache.keyOf('first@example.com', 'p');
    cache.remember(first, entry);
    for (let n = 0; n < 1000; n++) {
      cache.remember(cache.keyOf(`user${n}@example.com`, 'p'), { userId: `u${n}`, fingerprint: 'f' });
      cache.get(first);
      expect(cache.size()).to.be.at.most(100);
    }
    expect(cache.size()).to.equal(100);
    expect(cache.get(first), 'used all along').to.include(entry);
    expect(cache.get(cache.keyOf('user0@example.com', 'p')), 'the oldest unused').to.equal(undefined);
  });

  it('keys by e-mail and password under a secret of its own', () => {
    const one = verifiedCredentials({ max: 10, ttlMs: 1000 });
    const other = verifiedCredentials({ max: 10, ttlMs: 1000 });
    expect(one.keyOf('a@example.com', 'p')).to.equal(one.keyOf('a@example.com', 'p'));
    expect(one.keyOf('a@example.com', 'p')).to.not.equal(one.keyOf('a@example.com', 'q'));
    expect(one.keyOf('a@example.com', 'p')).to.not.equal(other.keyOf('a@example.com', 'p'));
    // The password itself never appears in a key (a longer one, so a chance match is impossible).
    expect(one.keyOf('a@example.com', 'correct horse battery staple')).to.not.include('correct horse');
  });

  it('forgets a check on request', () => {
    const cache = verifiedCredentials({ max: 10, ttlMs: 60_000 });
    const key = cache.keyOf('ana@example.com', 'a password');
    cache.remember(key, entry);
    cache.forget(key);
    expect(cache.get(key)).to.equal(undefined);
  });
});
