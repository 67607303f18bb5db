import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A project's git push hook token: HMAC-SHA256 under FORJA_WEBHOOK_SECRET of its slug and its
 * webhook nonce (random, new at creation and at each rotation), hex. A project created before
 * nonces existed (`null`) keeps the token of its slug alone until it is rotated.
 */
export function webhookToken(secret: string, slug: string, nonce: string | null): string {
  // A slug has no ':', so no slug and nonce can sign what another slug alone does.
  return createHmac('sha256', secret).update(nonce === null ? slug : `${slug}:${nonce}`).digest('hex');
}

export function webhookPath(secret: string, slug: string, nonce: string | null): string {
  return `/webhooks/git/${slug}/${webhookToken(secret, slug, nonce)}`;
}

/** Constant-time check of a presented token. */
export function webhookTokenMatches(secret: string, slug: string, nonce: string | null, presented: string): boolean {
  const expected = Buffer.from(webhookToken(secret, slug, nonce));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
