import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The SMTP login of an instance's mailbox at Forja's mail catcher. A neutralized copy's
 * placeholder mail server carries it, so the catcher knows whose mail arrives: each instance's
 * mail is kept for that instance alone. The password is derived (HMAC-SHA256 under the master key)
 * like an instance's database role's, so it needs no storage, and no instance can derive another's.
 */
export interface MailboxLogin {
  user: string;
  pass: string;
}

const USER_PREFIX = 'instance:';
const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;

export function mailboxLogin(masterKey: Buffer | string, slug: string): MailboxLogin {
  if (!SLUG.test(slug)) throw new Error(`not an instance slug: ${JSON.stringify(slug)}`);
  return { user: `${USER_PREFIX}${slug}`, pass: createHmac('sha256', masterKey).update(`forja mailbox\0${slug}`).digest('base64url') };
}

/** The instance whose login `user`/`pass` is, or null when it is no mailbox's (compared in constant time). */
export function mailboxOf(masterKey: Buffer | string, user: string, pass: string): string | null {
  if (!user.startsWith(USER_PREFIX)) return null;
  const slug = user.slice(USER_PREFIX.length);
  if (!SLUG.test(slug)) return null;
  const expected = Buffer.from(mailboxLogin(masterKey, slug).pass);
  const given = Buffer.from(pass);
  return given.length === expected.length && timingSafeEqual(given, expected) ? slug : null;
}
