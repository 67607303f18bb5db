import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a tool token and a tool cookie are bound to. */
export interface ToolClaims {
  /** The user's id (re-read from the read model on every use). */
  user: string;
  kind: string;
  slug: string | null;
  /** The tool host (no port) it is good for. */
  host: string;
}

interface Signed extends ToolClaims {
  use: 'enter' | 'cookie';
  expires: number;
  nonce: string;
}

export const TOKEN_TTL_MS = 60_000;
export const COOKIE_TTL_MS = 4 * 60 * 60 * 1000;

/** The key tool tokens and cookies are signed with, derived from the master key (as instance roles' passwords are). */
export const toolSigningKey = (masterKey: Buffer): Buffer => createHmac('sha256', masterKey).update('forja tool sign-in').digest();

/**
 * Web's one-time tokens that sign a user in to one tool host, and the tools origin's cookies.
 * A token's nonce is remembered until it expires, so a token enters once.
 */
export function toolTokens(key: Buffer, now: () => number = Date.now) {
  const used = new Map<string, number>();
  const sign = (body: string) => createHmac('sha256', key).update(body).digest('base64url');
  const seal = (claims: ToolClaims, use: Signed['use'], ttl: number): string => {
    const body = Buffer.from(JSON.stringify({ ...claims, use, expires: now() + ttl, nonce: randomBytes(16).toString('base64url') } satisfies Signed)).toString('base64url');
    return `${body}.${sign(body)}`;
  };
  const open = (value: string | undefined, use: Signed['use'], host: string): Signed | null => {
    const [body, mac, extra] = (value ?? '').split('.');
    if (!body || !mac || extra !== undefined) return null;
    const expected = Buffer.from(sign(body));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let claims: Signed;
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Signed;
    } catch {
      return null;
    }
    return claims.use === use && claims.host === host && claims.expires > now() ? claims : null;
  };
  return {
    /** A token for web's redirect to `<tool origin>/.forja/enter`, good for TOKEN_TTL_MS and once. */
    mint: (claims: ToolClaims) => seal(claims, 'enter', TOKEN_TTL_MS),
    /** The claims of an unused, unexpired token for `host`; null otherwise. Using it spends it. */
    redeem(token: string | undefined, host: string): ToolClaims | null {
      for (const [nonce, expires] of used) if (expires <= now()) used.delete(nonce);
      const claims = open(token, 'enter', host);
      if (!claims || used.has(claims.nonce)) return null;
      used.set(claims.nonce, claims.expires);
      return { user: claims.user, kind: claims.kind, slug: claims.slug, host: claims.host };
    },
    /** The tools origin's cookie value for these claims. */
    cookie: (claims: ToolClaims) => seal(claims, 'cookie', COOKIE_TTL_MS),
    /** The claims of a valid cookie for `host`; null otherwise. */
    readCookie(value: string | undefined, host: string): ToolClaims | null {
      const claims = open(value, 'cookie', host);
      return claims && { user: claims.user, kind: claims.kind, slug: claims.slug, host: claims.host };
    },
  };
}

export type ToolTokens = ReturnType<typeof toolTokens>;
