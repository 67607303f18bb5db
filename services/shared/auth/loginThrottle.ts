import type { LoginThrottleSettings } from './loginThrottle.settings.ts';

/** What a sign-in attempt turned out to be, once the password was checked (or not). */
export type Outcome = 'right' | 'wrong' | 'unchecked';

export type Admission = { admitted: false; retryAfterS: number } | { admitted: true; settle(outcome: Outcome): void };

interface Failures {
  count: number;
  lastAt: number;
  lockedUntil: number;
}

const HOUR_MS = 60 * 60 * 1000;
const MAX_KEYS = 10_000;

/**
 * Backoff for password guessing, per account and per client address, decided before any password
 * is hashed. An attempt is counted as a failure when it is admitted (so a burst sent at once is
 * limited like one sent in sequence) and given back when the password turns out right or was never
 * checked. Past its free failures a key is locked for `FORJA_LOGIN_LOCK_S`, doubled by each further
 * failure up to `FORJA_LOGIN_MAX_LOCK_S`; while either key is locked every attempt is refused,
 * the right password too. Failures are forgotten an hour (or the longest lock) after the last one.
 *
 * State is in memory, per process, at most 10,000 keys (the least recently used go first): a
 * restart forgives, and web and the control-plane each keep their own count.
 */
export function loginThrottle(settings: LoginThrottleSettings, now: () => number = Date.now, maxKeys = MAX_KEYS) {
  const keys = new Map<string, Failures>();
  const forgetMs = Math.max(HOUR_MS, settings.FORJA_LOGIN_MAX_LOCK_S * 1000);

  const free = (key: string) => (key.startsWith('account:') ? settings.FORJA_LOGIN_ACCOUNT_FAILURES : settings.FORJA_LOGIN_ADDRESS_FAILURES);
  const lockMs = (beyond: number) => Math.min(settings.FORJA_LOGIN_MAX_LOCK_S, settings.FORJA_LOGIN_LOCK_S * 2 ** (beyond - 1)) * 1000;

  /** The key's failures, moved to the most recently used end. */
  function touch(key: string, at: number): Failures {
    const found = keys.get(key);
    keys.delete(key);
    const failures = found && at - found.lastAt <= forgetMs ? found : { count: 0, lastAt: at, lockedUntil: 0 };
    keys.set(key, failures);
    for (const oldest of keys.keys()) {
      if (keys.size <= maxKeys) break;
      keys.delete(oldest);
    }
    return failures;
  }

  function giveBack(key: string): void {
    const failures = keys.get(key);
    if (!failures) return;
    failures.count = Math.max(0, failures.count - 1);
    if (failures.count <= free(key)) failures.lockedUntil = 0;
  }

  return {
    /** Whether an attempt to sign in to `account` from `address` may check its password now. */
    admit(account: string, address: string): Admission {
      const at = now();
      const attempt = [`account:${account.trim().toLowerCase()}`, `address:${addressKey(address)}`];
      const lockedFor = Math.max(...attempt.map((key) => touch(key, at).lockedUntil - at));
      if (lockedFor > 0) return { admitted: false, retryAfterS: Math.ceil(lockedFor / 1000) };
      for (const key of attempt) {
        const failures = touch(key, at);
        failures.count += 1;
        failures.lastAt = at;
        if (failures.count > free(key)) failures.lockedUntil = at + lockMs(failures.count - free(key));
      }
      let settled = false;
      return {
        admitted: true,
        settle(outcome) {
          if (settled || outcome === 'wrong') return void (settled = true);
          settled = true;
          const [ofAccount, ofAddress] = attempt as [string, string];
          if (outcome === 'right') keys.delete(ofAccount);
          else giveBack(ofAccount);
          giveBack(ofAddress);
        },
      };
    },
    /** How many keys are remembered (for tests of the bound). */
    size: () => keys.size,
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;

/**
 * The key of a client address: IPv4 as is (also when IPv4-mapped), IPv6 by its /64, since one
 * host usually holds a whole /64 and could otherwise start afresh from each of its addresses.
 */
export function addressKey(address: string): string {
  const plain = address.split('%')[0]!.toLowerCase();
  if (plain.startsWith('::ffff:') && plain.includes('.')) return plain.slice('::ffff:'.length);
  if (!plain.includes(':')) return plain;
  const [head = '', tail] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => (Number.parseInt(group, 16) || 0).toString(16))
    .join(':')}::/64`;
}
