import { expect } from 'chai';
import { ConfigError } from '#shared/config/config.ts';
import { loadLoginThrottleSettings, type LoginThrottleSettings } from '#shared/auth/loginThrottle.settings.ts';
import { addressKey, loginThrottle, type Admission } from '#shared/auth/loginThrottle.ts';

const SETTINGS: LoginThrottleSettings = { FORJA_LOGIN_ACCOUNT_FAILURES: 5, FORJA_LOGIN_ADDRESS_FAILURES: 20, FORJA_LOGIN_LOCK_S: 2, FORJA_LOGIN_MAX_LOCK_S: 900 };

/** A throttle on a clock the test moves. */
function throttleAt(settings = SETTINGS, maxKeys?: number) {
  const clock = { ms: 1_000_000 };
  const throttle = loginThrottle(settings, () => clock.ms, maxKeys);
  return { throttle, clock };
}

/** Admits and settles one attempt; the Retry-After in seconds when refused, 0 when admitted. */
function attempt(throttle: ReturnType<typeof loginThrottle>, account: string, address: string, outcome: 'right' | 'wrong' | 'unchecked' = 'wrong'): number {
  const admission: Admission = throttle.admit(account, address);
  if (!admission.admitted) return admission.retryAfterS;
  admission.settle(outcome);
  return 0;
}

describe('the login throttle (issue 10, item 6)', () => {
  it('lets an account fail 5 times, then locks it for 2 s, doubling with each further failure up to 15 minutes', () => {
    const { throttle, clock } = throttleAt();
    for (let failure = 1; failure <= 6; failure++) expect(attempt(throttle, 'ana@example.com', '192.0.2.1'), `failure ${failure}`).to.equal(0);
    const locks = [];
    for (let round = 0; round < 12; round++) {
      const retryAfter = attempt(throttle, 'ana@example.com', '192.0.2.1');
      locks.push(retryAfter);
      clock.ms += retryAfter * 1000;
      expect(attempt(throttle, 'ana@example.com', '192.0.2.1'), 'admitted once the lock ends').to.equal(0);
    }
    expect(locks).to.deep.equal([2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
  });

  it('refuses the right password too while the account is locked, and a burst admitted at once counts in full', () => {
    const { throttle } = throttleAt();
    const burst = Array.from({ length: 60 }, () => throttle.admit('ana@example.com', '192.0.2.1'));
    expect(burst.filter((admission) => admission.admitted)).to.have.length(6);
    for (const admission of burst) if (admission.admitted) admission.settle('wrong');
    const refused = throttle.admit('ana@example.com', '192.0.2.1');
    expect(refused).to.deep.equal({ admitted: false, retryAfterS: 2 });
  });

  it('locks the account for every address, and leaves other accounts alone', () => {
    const { throttle } = throttleAt();
    for (let failure = 1; failure <= 6; failure++) attempt(throttle, 'ana@example.com', '192.0.2.1');
    expect(attempt(throttle, 'Ana@Example.com ', '198.51.100.7')).to.equal(2);
    expect(attempt(throttle, 'bob@example.com', '192.0.2.1', 'right')).to.equal(0);
    expect(attempt(throttle, 'bob@example.com', '198.51.100.7', 'right')).to.equal(0);
  });

  it('locks an address after 20 failures over any accounts, and leaves other addresses alone', () => {
    const { throttle } = throttleAt();
    for (let failure = 1; failure <= 21; failure++) expect(attempt(throttle, `guess${failure}@example.com`, '192.0.2.1')).to.equal(0);
    expect(attempt(throttle, 'ana@example.com', '192.0.2.1', 'right')).to.equal(2);
    expect(attempt(throttle, 'ana@example.com', '198.51.100.7', 'right')).to.equal(0);
  });

  it('forgives an account’s failures when its password is right, and gives back attempts never checked', () => {
    const { throttle } = throttleAt();
    for (let failure = 1; failure <= 4; failure++) attempt(throttle, 'ana@example.com', '192.0.2.1');
    attempt(throttle, 'ana@example.com', '192.0.2.1', 'right');
    for (let failure = 1; failure <= 6; failure++) expect(attempt(throttle, 'ana@example.com', '192.0.2.1')).to.equal(0);
    expect(attempt(throttle, 'ana@example.com', '192.0.2.1')).to.be.greaterThan(0);
    for (let busy = 1; busy <= 50; busy++) expect(attempt(throttle, 'cleo@example.com', '203.0.113.9', 'unchecked')).to.equal(0);
  });

  it('counts a settled attempt once, however often it is settled', () => {
    const { throttle } = throttleAt();
    const first = throttle.admit('ana@example.com', '192.0.2.1');
    if (!first.admitted) throw new Error('refused');
    first.settle('unchecked');
    first.settle('unchecked');
    for (let failure = 1; failure <= 6; failure++) expect(attempt(throttle, 'ana@example.com', '192.0.2.1')).to.equal(0);
  });

  it('forgets failures an hour after the last one', () => {
    const { throttle, clock } = throttleAt();
    for (let failure = 1; failure <= 5; failure++) attempt(throttle, 'ana@example.com', '192.0.2.1');
    clock.ms += 60 * 60 * 1000 + 1;
    for (let failure = 1; failure <= 6; failure++) expect(attempt(throttle, 'ana@example.com', '192.0.2.1')).to.equal(0);
  });

  it('remembers at most its bound of keys', () => {
    const { throttle } = throttleAt(SETTINGS, 100);
    for (let guess = 0; guess < 1000; guess++) attempt(throttle, `guess${guess}@example.com`, `10.0.${guess >> 8}.${guess & 255}`);
    expect(throttle.size()).to.equal(100);
  });

  it('counts IPv6 clients by their /64 and IPv4-mapped ones as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8:1:2:ffff:ffff:ffff:ffff')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(addressKey('fe80::1%eth0')).to.equal('fe80:0:0:0::/64');
    expect(addressKey('::1')).to.equal('0:0:0:0::/64');
    expect(addressKey('::ffff:192.0.2.1')).to.equal('192.0.2.1');
    expect(addressKey('192.0.2.1')).to.equal('192.0.2.1');
  });

  it('takes its settings from the environment, with defaults, and names a wrong one', () => {
    expect(loadLoginThrottleSettings({})).to.deep.equal(SETTINGS);
    for (const [name, wrong] of [['FORJA_LOGIN_ACCOUNT_FAILURES', '0'], ['FORJA_LOGIN_ADDRESS_FAILURES', 'many'], ['FORJA_LOGIN_LOCK_S', '0'], ['FORJA_LOGIN_MAX_LOCK_S', '86401']] as const) {
      expect(() => loadLoginThrottleSettings({ [name]: wrong }), name).to.throw(ConfigError, new RegExp(`^configuration: ${name} `));
    }
  });
});
