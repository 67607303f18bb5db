import type { Request, RequestHandler } from 'express';
import { loadLoginThrottleSettings } from '#shared/auth/loginThrottle.settings.ts';
import { loginThrottle, type LoginThrottle } from '#shared/auth/loginThrottle.ts';
import { orExit } from '#shared/config/config.ts';
import { HttpError } from '#shared/http/errors.ts';
import { PasswordChecksBusy } from '#shared/secrets/scryptSlots.ts';
import type { ControlPlaneContext } from '../context.ts';
import { verifiedCredentials, type VerifiedCredentials } from './verifiedCredentials.ts';

/** Successful checks are remembered this long, so an API client does not pay scrypt on every call. */
const VERIFIED_TTL_MS = 60_000;
/** At most this many are remembered. */
const VERIFIED_MAX = 1000;

export const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="forja"' };

/** Where the Basic guard leaves the e-mail it authenticated, for the guard that loads the user. */
export const BASIC_EMAIL = 'basicEmail';

/** One throttle and one memory of checks per control-plane (its context), shared by all its routes. */
const stateOf = new WeakMap<ControlPlaneContext, { throttle: LoginThrottle; verified: VerifiedCredentials }>();

function state(ctx: ControlPlaneContext) {
  let found = stateOf.get(ctx);
  if (!found) {
    found = { throttle: loginThrottle(orExit(() => loadLoginThrottleSettings())), verified: verifiedCredentials({ max: VERIFIED_MAX, ttlMs: VERIFIED_TTL_MS }) };
    stateOf.set(ctx, found);
  }
  return found;
}

/** The e-mail and password of an `Authorization: Basic …` header (RFC 7617), if it holds them. */
export function basicCredentials(header: string | undefined): { email: string; password: string } | undefined {
  const encoded = /^ *basic +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = /^([^:]*):(.*)$/s.exec(Buffer.from(encoded, 'base64').toString('utf8'));
  return decoded ? { email: decoded[1]!, password: decoded[2]! } : undefined;
}

const unauthorized = () => new HttpError(401, 'missing or wrong credentials: use HTTP Basic with your e-mail and password', CHALLENGE);

/**
 * HTTP Basic against the users' passwords. Before any hashing, the attempt must get past the
 * login throttle (429 with `Retry-After` while the account or the address is locked, the right
 * password included); hashing itself waits for a scrypt slot (503 with `Retry-After` when they are
 * all busy). A check remembered from the last minute counts only while the user's stored hash is
 * still the one it matched.
 */
export function basicAuth(ctx: ControlPlaneContext): RequestHandler {
  const { throttle, verified } = state(ctx);
  /**
   * Checks in progress, by credentials: an API client that sends ten requests at once with the
   * same e-mail and password makes one attempt, not ten (ten would be a burst of guesses to the
   * throttle, and ten scrypt runs). The same wrong password sent at once is one guess.
   */
  const inFlight = new Map<string, Promise<'right' | 'wrong' | 'inactive'>>();
  return (req, res, next) => {
    const credentials = basicCredentials(req.get('authorization'));
    if (!credentials) return next(unauthorized());
    const { email, password } = credentials;
    const answer = (verdict: 'right' | 'wrong' | 'inactive') => {
      if (verdict !== 'right') return next(unauthorized());
      res.locals[BASIC_EMAIL] = email;
      next();
    };
    const refuse = (error: unknown) => {
      if (error instanceof PasswordChecksBusy) return next(new HttpError(503, 'too many sign-ins are being checked at once: try again in a moment', { 'Retry-After': '1' }));
      next(error);
    };
    const key = verified.keyOf(email, password);
    const pending = inFlight.get(key);
    if (pending) return void pending.then(answer, refuse);
    const admission = throttle.admit(email, clientAddress(req));
    if (!admission.admitted) {
      const retry = String(admission.retryAfterS);
      return next(new HttpError(429, `too many failed sign-ins for this account or from this address: try again in ${retry} s`, { 'Retry-After': retry }));
    }
    const check = checkPassword(ctx, verified, email, password);
    inFlight.set(key, check);
    check.then(
      (verdict) => {
        inFlight.delete(key);
        // A deactivated account with its right password: no guess, but no entry either.
        admission.settle(verdict === 'wrong' ? 'wrong' : 'right');
        answer(verdict);
      },
      (error: unknown) => {
        inFlight.delete(key);
        admission.settle('unchecked');
        refuse(error);
      },
    );
  };
}

/** Checks the password, or trusts a remembered check whose stored hash is still the user's. */
async function checkPassword(ctx: ControlPlaneContext, verified: VerifiedCredentials, email: string, password: string): Promise<'right' | 'wrong' | 'inactive'> {
  const key = verified.keyOf(email, password); // the same key basicAuth coalesces on
  const remembered = verified.get(key);
  if (remembered && (await ctx.identity.passwordFingerprint(remembered.userId)) === remembered.fingerprint) return 'right';
  verified.forget(key);
  const result = await ctx.identity.authenticate(email, password);
  if (!result.ok) return result.reason === 'inactive' ? 'inactive' : 'wrong';
  verified.remember(key, { userId: result.user.user_id, fingerprint: result.fingerprint });
  return 'right';
}

/** The control-plane has no proxy setting: a client is its socket's address. */
function clientAddress(req: Request): string {
  return req.socket.remoteAddress ?? '';
}
