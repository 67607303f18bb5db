import { createHmac, randomBytes } from 'node:crypto';

/** A Basic check that succeeded: whose it was and which stored password hash it matched. */
export interface Verified {
  userId: string;
  fingerprint: string;
}

/**
 * Successful Basic checks, remembered for `ttlMs` so an API client does not pay scrypt on every
 * call; at most `max` of them, the least recently used going first, so a stream of distinct
 * credentials cannot grow it. Keys are HMACs of the credentials under a key of this process
 * alone: what is kept in memory is worth nothing without it.
 *
 * An entry is only a hint: the caller checks that the user's stored hash still has the entry's
 * fingerprint before trusting it, so a password change ends it at once, in any process.
 */
export function verifiedCredentials({ max, ttlMs, now = Date.now }: { max: number; ttlMs: number; now?: () => number }) {
  const secret = randomBytes(32);
  const entries = new Map<string, Verified & { expiresAt: number }>();

  return {
    keyOf: (email: string, password: string): string => createHmac('sha256', secret).update(`${email}\0${password}`).digest('base64url'),

    get(key: string): Verified | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= now()) return undefined;
      entries.set(key, entry);
      return entry;
    },

    remember(key: string, verified: Verified): void {
      entries.delete(key);
      entries.set(key, { ...verified, expiresAt: now() + ttlMs });
      for (const oldest of entries.keys()) {
        if (entries.size <= max) break;
        entries.delete(oldest);
      }
    },

    forget: (key: string): void => void entries.delete(key),

    size: (): number => entries.size,
  };
}

export type VerifiedCredentials = ReturnType<typeof verifiedCredentials>;
